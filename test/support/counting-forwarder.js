import net from 'node:net';

// A loopback forwarder to `port` that counts the connections it accepts:
// how many tunnel connections a mux client opened.
export async function countingForwarder(port) {
  const sockets = new Set();
  const counter = { accepted: 0 };
  const server = net.createServer((socket) => {
    counter.accepted += 1;
    const upstream = net.connect({ host: '127.0.0.1', port });
    for (const each of [socket, upstream]) {
      sockets.add(each);
      each.on('error', () => {});
      each.on('close', () => sockets.delete(each));
    }
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream);
    upstream.pipe(socket);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  counter.port = server.address().port;
  counter.close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  };
  return counter;
}
