import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';

export const sha256 = (data) => createHash('sha256').update(data).digest('hex');

// Sends `size` random bytes through an entry port to an echo target and
// reads them all back; resolves with the hashes of what was sent and what
// returned. It closes only once everything is back: shadowsocks-libev does
// not half-close, so a FIN sent early would cut off the echo in flight.
export function echoTransfer({ port, host = '127.0.0.1', size = 8 * 1024 * 1024, timeoutMs = 30_000 }) {
  const payload = randomBytes(size);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, allowHalfOpen: true });
    const back = createHash('sha256');
    let received = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`echo transfer through :${port} timed out with ${received} of ${size} bytes back`));
    }, timeoutMs);
    socket.on('connect', () => {
      const chunk = 256 * 1024;
      let offset = 0;
      const writeMore = () => {
        while (offset < size) {
          const piece = payload.subarray(offset, offset + chunk);
          offset += piece.length;
          if (!socket.write(piece)) return socket.once('drain', writeMore);
        }
      };
      writeMore();
    });
    socket.on('data', (data) => {
      back.update(data);
      received += data.length;
      if (received >= size) socket.end();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ sent: sha256(payload), returned: back.digest('hex'), bytesBack: received });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
