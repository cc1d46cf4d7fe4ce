import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

// A valid connection through a relay pair that sends 32 KB every 10 ms and
// hashes what it sends and what comes back, until finish(): the storm
// suites check that it flows whole while hostile connections hit the server.
export function steadyStream(port) {
  const socket = net.connect({ port, host: '127.0.0.1' });
  const sent = createHash('sha256');
  const back = createHash('sha256');
  let sentBytes = 0;
  let backBytes = 0;
  let timer;
  socket.on('data', (data) => {
    back.update(data);
    backBytes += data.length;
  });
  socket.on('connect', () => {
    timer = setInterval(() => {
      const piece = randomBytes(32 * 1024);
      sent.update(piece);
      sentBytes += piece.length;
      socket.write(piece);
    }, 10);
  });
  return {
    async finish() {
      clearInterval(timer);
      for (let waited = 0; backBytes < sentBytes && waited < 5000; waited += 20) await sleep(20);
      socket.destroy();
      return { sentBytes, backBytes, sent: sent.digest('hex'), back: back.digest('hex') };
    },
  };
}
