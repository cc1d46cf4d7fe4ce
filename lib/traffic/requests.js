import net from 'node:net';
import { socks5AnswerLength, socks5ConnectRequest } from '../relay/inbounds/socks5.js';
import { formatEndpoint } from '../relay/endpoint.js';
import { distribution } from '../statistics/summaries.js';

// The request workload (docs/requests.md): `concurrency` clients, each
// sending one HTTP/1.1 GET at a time to the HTTP target through whatever
// listens on host:port, for `durationSeconds`, the way a browser's
// connections load a site. `kind` says how a client reaches the target:
//   tunnel        the entry forwards to the target (a relay client's
//                 tunnel, or the target itself for direct)
//   socks5        SOCKS5 CONNECT to `target`, then requests
//   http-connect  CONNECT target, then requests in the tunnel
//   http-proxy    each request with the absolute URI of `target`
// The first `warmupSeconds` are load that is not counted: a relay on a JIT
// (ours, on Node) answers its first thousand requests several times slower
// than the rest, and a proxy in use has long been warm. `onMeasuring()` is
// called when counting starts (the runner reads the relays' CPU then).
// By default a client keeps its connection (and its handshake) for all its
// requests, and a request's latency runs from its write to the last byte of
// its response. With newConnections every request opens a connection of
// its own (the handshake included) and asks the target to close it, and
// its latency runs from connect() to the last byte: connection setup.
//
// One client for every kind, written for this: the figures differ only by
// what is between it and the target. It parses no more of a response than
// its status and Content-Length, and is much faster than any relay pair
// (docs/requests.md measures direct against the fastest row).
const REQUEST_KINDS = Object.freeze(['tunnel', 'socks5', 'http-connect', 'http-proxy']);
const ERROR_KINDS = Object.freeze(['refused', 'reset', 'timeout', 'badResponse']);
const HEAD_END = Buffer.from('\r\n\r\n');
// A client that failed waits this long before its next try, so a dead
// relay costs a count of errors, not a busy loop.
const RETRY_MS = 10;
const SWEEP_MS = 100;
// What one read takes at most: a response of the default size in one read,
// a large one in several.
const READ_BUFFER_BYTES = 16 * 1024;

export async function measureRequests({
  host = '127.0.0.1',
  port,
  kind = 'tunnel',
  target,
  concurrency = 20,
  durationSeconds = 3,
  warmupSeconds = 0,
  onMeasuring = () => {},
  newConnections = false,
  requestTimeoutMs = 10_000,
  signal,
}) {
  if (!REQUEST_KINDS.includes(kind)) throw new RangeError(`measureRequests: unknown kind ${kind}`);
  const authority = formatEndpoint(target);
  const connection = newConnections ? 'close' : 'keep-alive';
  const path = kind === 'http-proxy' ? `http://${authority}/` : '/';
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${authority}\r\nConnection: ${connection}\r\n\r\n`);
  const handshake = {
    socks5: socks5ConnectRequest(target),
    'http-connect': Buffer.from(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
  }[kind];

  const errors = Object.fromEntries(ERROR_KINDS.map((name) => [name, 0]));
  let samples = new Float64Array(1 << 16);
  let ok = 0;
  let connections = 0;
  const started = performance.now();
  const measureFrom = started + warmupSeconds * 1000;
  const endAt = measureFrom + durationSeconds * 1000;
  let lastDone = measureFrom;
  let measuring = warmupSeconds === 0;
  const counting = (since) => {
    if (!measuring && performance.now() >= measureFrom) {
      measuring = true;
      onMeasuring();
    }
    return measuring && since >= measureFrom;
  };
  if (measuring) onMeasuring();
  const record = (milliseconds) => {
    if (ok === samples.length) {
      const grown = new Float64Array(samples.length * 2);
      grown.set(samples);
      samples = grown;
    }
    samples[ok] = milliseconds;
    ok += 1;
  };

  const workers = [];
  const finished = [];
  // The head our target answers every request with, once parsed: a
  // response that opens with the same bytes needs no parsing again.
  const heads = { bytes: null, bodyLength: 0, close: false };

  for (let i = 0; i < concurrency; i += 1) {
    finished.push(new Promise((resolve) => {
      // Each client reads into a buffer of its own (net's onread), so a
      // read allocates nothing and skips the stream layer: this client is
      // a load generator, and every microsecond it spends is taken from
      // the relays it measures on a machine with few cores.
      const worker = {
        socket: null, phase: 'idle', held: null, startedAt: 0, openedAt: 0, want: 0, closeAfter: false, readBuffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      };
      workers.push(worker);
      const stopped = () => signal?.aborted || performance.now() >= endAt;

      const drop = () => {
        if (worker.socket) {
          worker.socket.removeAllListeners();
          worker.socket.on('error', () => {});
          worker.socket.destroy();
        }
        worker.socket = null;
        worker.phase = 'idle';
      };
      const fail = (errorKind) => {
        if (counting(performance.now())) errors[errorKind] += 1;
        drop();
        setTimeout(next, RETRY_MS);
      };
      worker.timedOut = () => fail('timeout');
      const complete = () => {
        const now = performance.now();
        if (counting(worker.startedAt)) {
          record(now - worker.startedAt);
          lastDone = now;
        }
        worker.phase = 'idle';
        if (worker.closeAfter || newConnections) drop();
        next();
      };

      const open = () => {
        if (counting(performance.now())) connections += 1;
        const socket = net.connect({ host, port, noDelay: true, onread: { buffer: worker.readBuffer, callback: onRead } });
        worker.socket = socket;
        worker.held = null;
        worker.closeAfter = false;
        worker.openedAt = performance.now();
        socket.on('error', (error) => fail(error.code === 'ECONNREFUSED' ? 'refused' : 'reset'));
        socket.on('close', () => {
          if (worker.socket === socket) fail('reset');
        });
        if (handshake) {
          worker.phase = 'handshake';
          socket.write(handshake);
        } else {
          send();
        }
      };

      const send = () => {
        worker.phase = 'response';
        worker.held = null;
        worker.want = 0;
        worker.startedAt = newConnections ? worker.openedAt : performance.now();
        worker.socket.write(request);
      };

      const next = () => {
        if (worker.phase !== 'idle') return;
        if (stopped()) {
          drop();
          return resolve();
        }
        if (worker.socket) send();
        else open();
      };

      // The usual read: a whole response with the head already seen, in
      // one read, compared in place and never copied.
      const onRead = (length, buffer) => {
        if (worker.phase === 'response' && worker.held === null && heads.bytes !== null && length >= heads.bytes.length
          && buffer.compare(heads.bytes, 0, heads.bytes.length, 0, heads.bytes.length) === 0) {
          const whole = heads.bytes.length + heads.bodyLength;
          if (length === whole) {
            worker.closeAfter = heads.close;
            return complete();
          }
          if (length > whole) return fail('badResponse');
        }
        // Anything else is kept (a copy: the buffer is read into again).
        const data = Buffer.from(buffer.subarray(0, length));
        worker.held = worker.held ? Buffer.concat([worker.held, data]) : data;
        if (worker.phase === 'handshake') return readHandshake();
        if (worker.phase === 'response') return readResponse();
        return fail('badResponse');
      };

      const readHandshake = () => {
        const held = worker.held;
        let length;
        if (kind === 'socks5') {
          try {
            length = socks5AnswerLength((at) => held[at], held.length);
          } catch {
            return fail('refused');
          }
        } else {
          const end = held.indexOf(HEAD_END);
          if (end === -1) return held.length > 16 * 1024 ? fail('badResponse') : undefined;
          if (!/^HTTP\/1\.[01] 200 /.test(held.toString('latin1', 0, 13))) return fail('refused');
          length = end + HEAD_END.length;
        }
        if (length === 0) return undefined;
        if (held.length > length) return fail('badResponse');
        return send();
      };

      const readResponse = () => {
        const held = worker.held;
        if (worker.want === 0) {
          const end = held.indexOf(HEAD_END);
          if (end === -1) return held.length > 16 * 1024 ? fail('badResponse') : undefined;
          const head = held.toString('latin1', 0, end + 2);
          const length = /\r\ncontent-length:\s*(\d+)\r\n/i.exec(head);
          if (!head.startsWith('HTTP/1.1 200 ') && !head.startsWith('HTTP/1.0 200 ')) return fail('badResponse');
          if (!length) return fail('badResponse');
          worker.closeAfter = /\r\nconnection:\s*close\r\n/i.test(head) || head.startsWith('HTTP/1.0');
          worker.want = end + HEAD_END.length + Number(length[1]);
          heads.bytes = Buffer.from(held.subarray(0, end + HEAD_END.length));
          heads.bodyLength = Number(length[1]);
          heads.close = worker.closeAfter;
        }
        if (held.length < worker.want) return undefined;
        if (held.length > worker.want) return fail('badResponse');
        return complete();
      };

      next();
    }));
  }

  // One sweep for every client's deadline, rather than a timer a request.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const worker of workers) {
      const since = worker.phase === 'handshake' ? worker.openedAt : worker.startedAt;
      if (worker.phase !== 'idle' && now - since > requestTimeoutMs) worker.timedOut();
    }
  }, SWEEP_MS);
  try {
    await Promise.all(finished);
  } finally {
    clearInterval(sweep);
  }
  const seconds = Math.max(lastDone, Math.min(performance.now(), endAt)) - measureFrom;
  const latency = distribution(samples.subarray(0, ok));
  return {
    kind,
    concurrency,
    newConnections,
    seconds: seconds / 1000,
    warmupSeconds,
    ok,
    errors,
    connections,
    requestsPerSecond: ok / (seconds / 1000),
    latency: latency && { unit: 'ms', ...latency },
  };
}
