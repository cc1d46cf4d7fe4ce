import { randomFillSync } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { formatEndpoint } from '../relay/endpoint.js';
import { measurementError } from '../errors.js';
import { summariseLatency } from './latency-summary.js';

// UDP round trips through whatever listens on host:port, normally the
// relay client in front of a UDP echo target: `count` datagrams of `size`
// random bytes, one after another, each timed from the send to its echo.
// A datagram whose echo has not come within `waitMs` is lost (counted, not
// sent again) and the next goes; an echo that differs from its datagram
// fails the measurement, as a relay that corrupts data must not look fast.
// Resolves with the latency figures of docs/result.md over the datagrams
// that came back, plus lost and lostPercent. A path that loses
// MAX_LOST datagrams fails rather than waiting out every one.
const MAX_LOST = 100;

export async function measureUdpRoundTrips({
  host = '127.0.0.1',
  port,
  count = 2000,
  size = 1024,
  waitMs = 1000,
  signal,
} = {}) {
  const target = formatEndpoint({ host, port });
  const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  const samples = [];
  let lost = 0;
  let pending = null;
  let failure = null;
  socket.on('error', (error) => {
    failure = measurementError(`udp latency: ${target}: ${error.message}`);
    pending?.done();
  });
  socket.on('message', (datagram) => {
    const at = process.hrtime.bigint();
    // A late echo of a datagram already counted lost is not this one's.
    if (!pending || datagram.length < 4 || datagram.readUInt32BE(0) !== pending.index) return;
    if (!datagram.equals(pending.request)) {
      failure = measurementError(
        `udp latency: the echo of datagram ${pending.index} differs from it: something on the path changed the data`,
      );
    } else if (pending.index > 0) {
      samples.push(Number(at - pending.sentAt) / 1e6);
    }
    pending.done();
  });
  await new Promise((resolve) => socket.bind(0, net.isIPv6(host) ? '::1' : '127.0.0.1', resolve));
  try {
    // One untimed datagram first: through the relays it makes the
    // associations, and the first timed one would pay for them.
    for (let index = 0; index <= count && !failure; index++) {
      signal?.throwIfAborted();
      const request = Buffer.allocUnsafe(size);
      randomFillSync(request);
      request.writeUInt32BE(index, 0);
      const answered = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), waitMs);
        pending = {
          index,
          request,
          sentAt: process.hrtime.bigint(),
          done: () => {
            clearTimeout(timer);
            resolve(true);
          },
        };
        socket.send(request, port, host);
      });
      pending = null;
      if (!answered && index > 0) lost += 1;
      if (lost >= MAX_LOST)
        failure = measurementError(`udp latency: ${lost} datagrams through ${target} had no echo within ${waitMs} ms`);
    }
  } finally {
    socket.close();
  }
  if (failure) throw failure;
  if (samples.length === 0) throw measurementError(`udp latency: no datagram of ${count} came back through ${target}`);
  return {
    ...summariseLatency(samples),
    lost,
    lostPercent: (100 * lost) / count,
  };
}
