import { socks5ConnectRequest } from '../relay/inbounds/socks5.js';
import { formatEndpoint } from '../relay/endpoint.js';
import { RequestClient } from './request-client.js';
import { RequestTally } from './request-tally.js';

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
// One sweep for every client's deadline, rather than a timer a request.
const SWEEP_MS = 100;

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
  const tally = new RequestTally({ warmupSeconds, durationSeconds, onMeasuring });
  const load = {
    host,
    port,
    kind,
    newConnections,
    tally,
    request: Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${authority}\r\nConnection: ${connection}\r\n\r\n`),
    handshake: {
      socks5: socks5ConnectRequest(target),
      'http-connect': Buffer.from(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
    }[kind],
    stopped: () => signal?.aborted || tally.over(),
    heads: { bytes: null, bodyLength: 0, close: false },
  };
  const clients = [];
  const finished = Array.from(
    { length: concurrency },
    () =>
      new Promise((resolve) => {
        const client = new RequestClient(load, resolve);
        clients.push(client);
        client.next();
      }),
  );
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const client of clients) {
      const since = client.since();
      if (since !== null && now - since > requestTimeoutMs) client.fail('timeout');
    }
  }, SWEEP_MS);
  try {
    await Promise.all(finished);
  } finally {
    clearInterval(sweep);
  }
  return tally.figures({ kind, concurrency, newConnections });
}
