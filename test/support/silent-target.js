import net from 'node:net';

// A target that accepts connections and then does nothing: never reads,
// never writes, never closes. What a stalled or hostile upstream looks like
// to a relay server.
export async function startSilentTarget() {
  const sockets = new Set();
  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    get connections() {
      return sockets.size;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
