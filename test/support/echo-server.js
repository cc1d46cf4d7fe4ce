import { createHash } from 'node:crypto';
import net from 'node:net';

// A TCP echo target that also hashes what it received, so a test can check
// the bytes at the far end as well as the bytes that come back.
export async function startEchoServer({ host = '127.0.0.1', port = 0 } = {}) {
  const received = [];
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const hash = createHash('sha256');
    const record = { bytes: 0, sha256: null };
    // The hash of what arrived is final once the peer has closed.
    record.closed = new Promise((resolve) =>
      socket.once('close', () => {
        record.sha256 ??= hash.digest('hex');
        resolve(record);
      }),
    );
    received.push(record);
    socket.on('data', (data) => {
      hash.update(data);
      record.bytes += data.length;
    });
    socket.on('end', () => {
      record.sha256 = hash.digest('hex');
      socket.end();
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.pipe(socket, { end: false });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: server.address().port,
    received,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
