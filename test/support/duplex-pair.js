import { Duplex } from 'node:stream';

// Two in-memory streams, each writing what the other reads, recording
// what went each way (wire.toServer, wire.toClient): a TCP connection
// with no socket, for the transports' unit tests.
export function duplexPair() {
  const wire = { toServer: [], toClient: [] };
  const make = (record) => {
    const side = new Duplex({
      allowHalfOpen: true,
      read() {},
      write(chunk, encoding, callback) {
        record.push(Buffer.from(chunk));
        side.peer.push(chunk);
        callback();
      },
      final(callback) {
        side.peer.push(null);
        callback();
      },
    });
    return side;
  };
  const client = make(wire.toServer);
  const server = make(wire.toClient);
  client.peer = server;
  server.peer = client;
  return { client, server, wire };
}

export const readToEnd = (stream) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
