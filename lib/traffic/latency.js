import { randomFillSync } from 'node:crypto';
import net from 'node:net';
import { formatEndpoint } from '../relay/endpoint.js';
import { measurementError } from '../errors.js';
import { summariseLatency } from './latency-summary.js';

// Request/response latency through whatever listens on host:port, normally
// the relay client in front of an echo target (docs/measurements.md,
// "Latency"):
//   rtt     - `roundTrips` requests of `size` random bytes, one after another
//             on one connection, each timed from the write to the moment the
//             whole echo is back;
//   connect - `connections` fresh connections, one after another, each timed
//             from net.connect() to the first echoed byte of a `size`-byte
//             request.
// Every echo is compared with its request, so a relay that corrupts data
// fails the measurement instead of looking fast. The samples are kept as
// they are (2,000 numbers); percentiles are nearest-rank over all of them.
/** @param {{ host?: string, port: number, roundTrips?: number, size?: number, connections?: number, timeoutMs?: number, signal?: AbortSignal }} [options] */
export async function measureLatency({
  host = '127.0.0.1',
  port,
  roundTrips = 2000,
  size = 1024,
  connections = 200,
  timeoutMs = 30_000,
  signal,
} = {}) {
  requireCount('roundTrips', roundTrips);
  requireCount('size', size);
  requireCount('connections', connections);
  requireCount('timeoutMs', timeoutMs);
  signal?.throwIfAborted();
  const target = formatEndpoint({ host, port });
  // What is under way, so a timeout can say what it cut short.
  const step = { label: 'connecting' };
  const stop = new AbortController();
  const timer = setTimeout(() => {
    stop.abort(
      measurementError(`latency: ${target} did not answer within ${timeoutMs} ms (timed out during ${step.label})`),
    );
  }, timeoutMs);
  const onAbort = () => stop.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const context = { host, port, target, size, step, signal: stop.signal };
    const rtt = await measureRoundTrips(context, roundTrips);
    const connect = await measureConnects(context, connections);
    return { rtt: summariseLatency(rtt), connect: summariseLatency(connect) };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

async function measureRoundTrips({ host, port, target, size, step, signal }, roundTrips) {
  const socket = net.connect({ host, port, noDelay: true });
  const exchange = echoExchange(socket, target, signal);
  const request = Buffer.alloc(size);
  const samples = [];
  try {
    // One untimed round trip first: through the relays it also carries the
    // address header and makes the relay server connect to the target,
    // which is connection setup (the connect row), not a round trip.
    step.label = 'the warm-up round trip';
    await exchange(randomFillSync(request), step.label);
    for (let i = 0; i < roundTrips; i += 1) {
      step.label = `round trip ${i + 1} of ${roundTrips}`;
      const started = process.hrtime.bigint();
      const { completeAt } = await exchange(randomFillSync(request), step.label);
      samples.push(milliseconds(completeAt - started));
    }
  } finally {
    socket.destroy();
  }
  return samples;
}

async function measureConnects({ host, port, target, size, step, signal }, connections) {
  const request = Buffer.alloc(size);
  const samples = [];
  for (let i = 0; i < connections; i += 1) {
    step.label = `connection ${i + 1} of ${connections}`;
    randomFillSync(request);
    const started = process.hrtime.bigint();
    // Written before the connection is up: net queues it and sends it the
    // moment the handshake completes, as a client with a request would.
    const socket = net.connect({ host, port, noDelay: true });
    try {
      const { firstByteAt } = await echoExchange(socket, target, signal)(request, step.label);
      samples.push(milliseconds(firstByteAt - started));
    } finally {
      socket.destroy();
    }
  }
  return samples;
}

// Sends one request at a time on `socket` and resolves when its echo is
// complete and equal to it, with the times of the first and the last
// echoed byte. Rejects on a changed, short or surplus echo, a closed or
// failed socket, or when `signal` aborts.
function echoExchange(socket, target, signal) {
  let pending = null;
  let failure = null;
  const fail = (error) => {
    failure ??= error;
    socket.destroy();
    if (pending) {
      const { reject } = pending;
      pending = null;
      reject(failure);
    }
  };
  const onAbort = () => fail(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  socket.once('close', () => {
    signal.removeEventListener('abort', onAbort);
    const what = pending
      ? `after ${pending.received} of ${pending.request.length} bytes of the echo of ${pending.label}`
      : 'between requests';
    fail(measurementError(`latency: ${target} closed the connection ${what}`));
  });
  socket.on('error', (error) => fail(measurementError(`latency: ${target}: ${error.message}`)));
  socket.on('data', (data) => {
    const at = process.hrtime.bigint();
    if (!pending) {
      fail(measurementError(`latency: ${target} sent ${data.length} bytes nobody asked for`));
      return;
    }
    const exchange = pending;
    if (exchange.received + data.length > exchange.request.length) {
      fail(
        measurementError(
          `latency: ${target} echoed more bytes than were sent in ${exchange.label} (${exchange.received + data.length} for ${exchange.request.length})`,
        ),
      );
      return;
    }
    exchange.firstByteAt ??= at;
    data.copy(exchange.reply, exchange.received);
    exchange.received += data.length;
    if (exchange.received < exchange.request.length) return;
    if (!exchange.reply.equals(exchange.request)) {
      const offset = exchange.reply.findIndex((byte, index) => byte !== exchange.request[index]);
      fail(
        measurementError(
          `latency: the echo of ${exchange.label} differs from the request at byte ${offset} of ${exchange.request.length}: something on the path changed the data`,
        ),
      );
      return;
    }
    pending = null;
    exchange.resolve({ firstByteAt: exchange.firstByteAt, completeAt: at });
  });
  return (request, label) =>
    new Promise((resolve, reject) => {
      if (failure) {
        reject(failure);
        return;
      }
      pending = {
        request,
        label,
        reply: Buffer.allocUnsafe(request.length),
        received: 0,
        firstByteAt: null,
        resolve,
        reject,
      };
      socket.write(request);
    });
}

const milliseconds = (nanoseconds) => Number(nanoseconds) / 1e6;

// The runner and the CLI check what a person typed; a bad count reaching
// here is a bug.
function requireCount(name, value) {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`measureLatency: ${name} must be a positive integer, got ${value}`);
}
