import net from 'node:net';
import { bindServer } from '../relay/listener.js';

// The far end of the latency harness: writes back whatever arrives. The
// runner starts it (`cipherbench echo`) on the target port in place of
// iperf3 -s. noDelay so a 1 KB echo leaves at once instead of waiting on
// Nagle for the ACK of the previous one, which would measure the kernel's
// delayed-ACK timer rather than the relays.
export async function startEchoTarget({ host = '127.0.0.1', port = 0 } = {}) {
  const sockets = new Set();
  const server = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A peer that resets is its own business; one bad connection never
    // disturbs another.
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  const address = await bindServer(server, { host, port });
  return {
    address,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
