import dgram from 'node:dgram';
import net from 'node:net';

// What the UDP relay's two roles share: sockets of the family their
// address needs, with buffers large enough that a burst at a benchmark's
// rate waits in the kernel rather than being dropped there (Linux caps
// the request at net.core.rmem_max / wmem_max).
const BUFFER_BYTES = 4 * 1024 * 1024;

export const udpType = (host) => (net.isIPv6(host) ? 'udp6' : 'udp4');

export function createUdpSocket(host, log) {
  const socket = dgram.createSocket({ type: udpType(host) });
  // A datagram socket's errors (an ICMP unreachable on a connected one, a
  // failed send) concern one datagram, never the relay.
  socket.on('error', (error) => log.debug(`udp: ${error.message}`));
  return socket;
}

export const enlargeBuffers = (socket) => {
  socket.setRecvBufferSize(BUFFER_BYTES);
  socket.setSendBufferSize(BUFFER_BYTES);
};

// socket.send without a callback: with one, Node queues a tick per datagram
// only to report it sent. A datagram the kernel does not take (a full send
// buffer) is then lost as one lost on the way would be; what send throws at
// once (a socket closed by a stop in the same tick) goes to `failed`.
export function sendDatagram(socket, datagram, port, host, failed) {
  try {
    socket.send(datagram, port, host);
  } catch (error) {
    failed(error);
  }
}

// The same on a connect()ed socket, which takes no address.
export function sendConnected(socket, datagram, failed) {
  try {
    socket.send(datagram);
  } catch (error) {
    failed(error);
  }
}

// Resolves with the bound { host, port }, or rejects with the bind error.
export function bindUdp(socket, { host, port }) {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      enlargeBuffers(socket);
      const address = socket.address();
      resolve({ host: address.address, port: address.port });
    });
  });
}

export const closeUdp = (socket) =>
  new Promise((done) => {
    try {
      socket.close(done);
    } catch {
      done();
    }
  });
