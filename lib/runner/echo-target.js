import net from 'node:net';

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
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port: boundPort } = server.address();
  return {
    address: { host: address, port: boundPort },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
