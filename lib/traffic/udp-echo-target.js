import dgram from 'node:dgram';
import net from 'node:net';

// The far end of the UDP round trips: sends every datagram back to where it
// came from. The runner starts it (`cipherbench udp-echo`) on the target
// port beside the TCP echo target.
export async function startUdpEchoTarget({ host = '127.0.0.1', port = 0 } = {}) {
  const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  // A send that fails concerns one datagram, never the target.
  socket.on('error', () => {});
  socket.on('message', (datagram, from) => socket.send(datagram, from.port, from.address, () => {}));
  await new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const address = socket.address();
  return {
    address: { host: address.address, port: address.port },
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
