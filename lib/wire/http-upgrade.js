import { layeredSocket } from './layered-socket.js';
import { protocolError } from './protocol-error.js';

// The HTTP/1.1 exchange that opens a ws or httpupgrade connection: a GET
// asking to upgrade, a 101 answer, then the connection is the transport's.
// Only the head is HTTP; no body is ever read.

// Where a client asks to upgrade by default: the path lib/peers gives Xray
// and sing-box, and the name tls's client asks for.
const DEFAULT_PATH = '/cipherbench';
const DEFAULT_HOST = 'localhost';

// Node's own bound on a request's head (http.maxHeaderSize): a head that
// has not ended by then is not a client's.
export const MAX_HEAD_BYTES = 16 * 1024;
const END = Buffer.from('\r\n\r\n');

// Collects bytes until a head ends (the blank line), with at most `limit`
// bytes before it. read(chunk) -> null while the head is unfinished, then
// { head, rest }: the head's text and the bytes that came after it in the
// same reads. Each read searches only its own bytes (and the three before
// them), so a head sent a byte per read costs linear time.
export function createHeadReader(limit = MAX_HEAD_BYTES) {
  const chunks = [];
  let length = 0;
  let tail = Buffer.alloc(0);
  return {
    read(chunk) {
      const window = Buffer.concat([tail, chunk]);
      const found = window.indexOf(END);
      if (found === -1) {
        chunks.push(chunk);
        length += chunk.length;
        if (length > limit) throw protocolError(`an HTTP head over ${limit} bytes without its end`);
        tail = window.subarray(Math.max(0, window.length - (END.length - 1)));
        return null;
      }
      const endInChunk = found + END.length - tail.length;
      if (length + endInChunk > limit) throw protocolError(`an HTTP head over ${limit} bytes without its end`);
      const all = Buffer.concat([...chunks, chunk.subarray(0, endInChunk)]);
      return { head: all.toString('latin1', 0, all.length - END.length), rest: chunk.subarray(endInChunk) };
    },
  };
}

// The head's start line and its header fields, names in lower case; a
// field given twice is joined with ", ", as RFC 9110 allows for lists.
export function parseHead(head) {
  const [startLine, ...lines] = head.split('\r\n');
  const headers = new Map();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0 || /\s/.test(line[colon - 1]) || /^\s/.test(line)) {
      throw protocolError(`a malformed HTTP header line ${JSON.stringify(line.slice(0, 80))}`);
    }
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { startLine, headers };
}

// Whether a comma-separated header (Connection, Upgrade) names `token`,
// in any case.
const hasToken = (value, token) =>
  value !== undefined && value.split(',').some((item) => item.trim().toLowerCase() === token);

// 'GET /path HTTP/1.1' -> { method, target, path } (path without a query).
export function parseRequestLine(line) {
  const match = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(line);
  if (!match) throw protocolError(`not an HTTP/1.1 request line: ${JSON.stringify(line.slice(0, 80))}`);
  const [, method, target] = match;
  return { method, target, path: target.split('?')[0] };
}

// 'HTTP/1.1 101 Switching Protocols' -> { status, line }.
function parseStatusLine(line) {
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(line);
  if (!match) throw protocolError(`not an HTTP/1.1 status line: ${JSON.stringify(line.slice(0, 80))}`);
  return { status: Number(match[1]), line };
}

export const formatHead = (startLine, fields) =>
  Buffer.from(`${[startLine, ...fields.map(([name, value]) => `${name}: ${value}`)].join('\r\n')}\r\n\r\n`, 'latin1');

const REASONS = { 400: 'Bad Request', 404: 'Not Found' };

// What a web server says to a request it will not upgrade: the status, no
// body, and the connection closed after it.
const refusalHead = (status) =>
  formatHead(`HTTP/1.1 ${status} ${REASONS[status]}`, [
    ['Content-Length', '0'],
    ['Connection', 'close'],
  ]);

// A refusal the server answers before it closes: `answer` is written, then
// the connection ends (layered-socket.js).
export function refusal(status, message) {
  return Object.assign(protocolError(`${message} (answered ${status})`), { answer: refusalHead(status) });
}

// The request's path and, when the chain names one, its Host, checked as
// Xray's and sing-box's servers check them: another path or host is a
// 404, as a web server's answer to a page it does not have.
export function checkTarget(request, headers, { path, host }, what) {
  if (request.method !== 'GET') throw refusal(400, `${what}: a ${request.method} request, not GET`);
  if (request.path !== path) throw refusal(404, `${what}: a request for ${JSON.stringify(request.path)}, not ${path}`);
  if (host !== undefined && headers.get('host')?.toLowerCase() !== host.toLowerCase()) {
    throw refusal(404, `${what}: a request for host ${JSON.stringify(headers.get('host') ?? '')}, not ${host}`);
  }
  if (!hasToken(headers.get('connection'), 'upgrade') || !hasToken(headers.get('upgrade'), 'websocket')) {
    throw refusal(400, `${what}: a request without Connection: Upgrade and Upgrade: websocket`);
  }
}

// The client's check of the server's answer: a 101 that upgrades to
// websocket, whichever transport asked (`what`).
export function checkUpgraded({ startLine, headers }, path, what) {
  const { status, line } = parseStatusLine(startLine);
  if (status !== 101) throw protocolError(`${what}: the server refused the upgrade to ${path}: ${line}`);
  if (!hasToken(headers.get('upgrade'), 'websocket') || !hasToken(headers.get('connection'), 'upgrade')) {
    throw protocolError(`${what}: a 101 without Upgrade: websocket and Connection: Upgrade`);
  }
}

// A path and a host as the chain gives them: a path of visible ASCII
// starting with '/', a host name with an optional port.
const pathCheck = (value) =>
  typeof value === 'string' && /^\/[\x21-\x7e]{0,1023}$/.test(value) && !value.includes('?')
    ? undefined
    : 'must be a path starting with "/", without spaces or a query, e.g. "/cipherbench"';
const hostCheck = (value) =>
  typeof value === 'string' && /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(value)
    ? undefined
    : 'must be a host name, with a port if it is not the default, e.g. "example.com" or "127.0.0.1:8080"';

// What both upgrade transports (ws, httpupgrade) take as params, and how
// either becomes a transport: the server's codec checks the request's
// path (and Host, when given), the client's sends them, each over the
// relay's socket as layered-socket.js wraps it.
export const UPGRADE_PARAMS = Object.freeze({
  path: { required: false, description: `the upgrade request's path (default ${DEFAULT_PATH})`, check: pathCheck },
  host: {
    required: false,
    description: `client: the Host it sends (default ${DEFAULT_HOST}); server: when given, the only Host it upgrades`,
    check: hostCheck,
  },
});

export const upgradeTransport =
  (serverCodec, clientCodec) =>
  (params, { note = () => {} } = {}) => {
    const server = { path: params.path ?? DEFAULT_PATH, host: params.host };
    const client = { path: server.path, host: params.host ?? DEFAULT_HOST };
    return {
      accept: (socket) => layeredSocket(socket, serverCodec(server, note)),
      connect: (socket) => layeredSocket(socket, clientCodec(client, note)),
    };
  };

// A codec (layered-socket.js) that reads the upgrade's HTTP head first,
// then hands the connection to what the upgrade opened: ws's frames, or
// httpupgrade's bytes as they are. upgrade(head, io) checks the head and
// returns { answer, upgraded }: the buffers that answer it (none on a
// client) and the upgraded connection's { read(chunk), frame(buffers),
// close(), ended() }. `unfinished` is the error of a stream that ends
// before the upgrade.
export function upgradingCodec({ start, upgrade, unfinished }) {
  const heads = createHeadReader();
  let upgraded = null;
  return {
    start,
    read(chunk, io) {
      if (upgraded) return upgraded.read(chunk);
      const done = heads.read(chunk);
      if (!done) return;
      const opened = upgrade(parseHead(done.head), io);
      // Upgraded before the answer goes out: a peer may reply to it at once.
      upgraded = opened.upgraded;
      if (opened.answer.length > 0) io.send(opened.answer);
      io.open();
      if (done.rest.length > 0) upgraded.read(done.rest);
    },
    frame: (buffers) => upgraded.frame(buffers),
    close: () => upgraded.close(),
    ended() {
      if (!upgraded) throw protocolError(unfinished);
      upgraded.ended();
    },
  };
}
