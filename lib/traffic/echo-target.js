import net from 'node:net';
import { bindClosingAll } from '../relay/listener.js';

// The far end of the latency harness: writes back whatever arrives. The
// runner starts it (`cipherbench echo`) on the target port in place of
// iperf3 -s. noDelay so a 1 KB echo leaves at once instead of waiting on
// Nagle for the ACK of the previous one, which would measure the kernel's
// delayed-ACK timer rather than the relays.
export async function startEchoTarget({ host = '127.0.0.1', port = 0 } = {}) {
  const server = net.createServer({ noDelay: true }, (socket) => socket.pipe(socket));
  return bindClosingAll(server, { host, port });
}
