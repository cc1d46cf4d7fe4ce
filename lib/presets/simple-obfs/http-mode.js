import { createHash, randomBytes, randomInt } from 'node:crypto';
import { protocolError } from '../../wire/protocol-error.js';
import { createHeadReader, parseHead } from './http-head.js';

// simple-obfs' obfs=http (src/obfs_http.c of 0.0.5): the client's first
// bytes ride behind a WebSocket-like upgrade request, the server's first
// bytes behind a 101 answer; after those two heads the stream is raw, both
// ways, with no framing at all.
const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

// What obfs-local 0.0.5 sends, field for field. It names a curl version
// picked once per process; so does a prepared chain here.
export function requestHead({ host, key, contentLength, curl }) {
  return (
    'GET / HTTP/1.1\r\n' +
    `Host: ${host}\r\n` +
    `User-Agent: curl/7.${curl.major}.${curl.minor}\r\n` +
    'Upgrade: websocket\r\n' +
    'Connection: Upgrade\r\n' +
    `Sec-WebSocket-Key: ${key}\r\n` +
    `Content-Length: ${contentLength}\r\n` +
    '\r\n'
  );
}

// What obfs-server 0.0.5 answers, except Sec-WebSocket-Accept: obfs-server
// sends 16 random bytes there, this sends what RFC 6455 derives from the
// request's key, as a real WebSocket server would (obfs-local reads neither).
export function responseHead({ accept, date, nginx }) {
  return (
    'HTTP/1.1 101 Switching Protocols\r\n' +
    `Server: nginx/1.${nginx.major}.${nginx.minor}\r\n` +
    `Date: ${date}\r\n` +
    'Upgrade: websocket\r\n' +
    'Connection: Upgrade\r\n' +
    `Sec-WebSocket-Accept: ${accept}\r\n` +
    '\r\n'
  );
}

export const websocketAccept = (key) =>
  createHash('sha1')
    .update(key + WEBSOCKET_GUID)
    .digest('base64');

// A request this server takes: GET (all obfs-local 0.0.5 sends), HTTP/1.1,
// an upgrade to websocket with a key, for `host` (a port after the name is
// ignored: obfs-local adds one when the server's port is not 80). Returns the
// key. obfs-server checks the method, Upgrade and (when given obfs-host)
// Host, and takes a failed check for a plain Shadowsocks stream; here it is
// a protocol violation.
function checkRequest(head, host) {
  const { startLine, fields } = parseHead('HTTP request', head);
  if (!/^GET \S+ HTTP\/1\.1$/.test(startLine)) {
    throw protocolError(`not a simple-obfs HTTP request: ${JSON.stringify(startLine.slice(0, 64))}`);
  }
  if (fields.get('upgrade')?.toLowerCase() !== 'websocket')
    throw protocolError('HTTP request without Upgrade: websocket');
  const hostField = fields.get('host');
  if (hostField === undefined) throw protocolError('HTTP request without a Host header');
  const name = hostField.replace(/:\d+$/, '');
  if (name.toLowerCase() !== host.toLowerCase())
    throw protocolError(`HTTP request for host ${JSON.stringify(name.slice(0, 64))}, not ${host}`);
  const key = fields.get('sec-websocket-key');
  if (!key) throw protocolError('HTTP request without Sec-WebSocket-Key');
  return key;
}

function checkResponse(head) {
  const { startLine } = parseHead('HTTP response', head);
  if (!/^HTTP\/1\.1 101 /.test(startLine))
    throw protocolError(`not a simple-obfs HTTP answer: ${JSON.stringify(startLine.slice(0, 64))}`);
}

export function prepareHttp({ host }) {
  const curl = { major: randomInt(51), minor: randomInt(2) };
  const nginx = { major: randomInt(11), minor: randomInt(12) };

  return () => {
    let requested = false;
    let answered = false;
    let clientKey = null;
    let requestReader = createHeadReader('HTTP request');
    let responseReader = createHeadReader('HTTP response');

    return {
      // The request carries the first bytes and says how many; empty
      // pushes wait, so the head never goes out alone.
      clientEncode(data, push) {
        if (requested) return push(data);
        if (data.length === 0) return;
        requested = true;
        const key = randomBytes(16).toString('base64');
        push(
          Buffer.concat([Buffer.from(requestHead({ host, key, contentLength: data.length, curl }), 'latin1'), data]),
        );
      },
      serverDecode(data, push) {
        if (!requestReader) return push(data);
        const request = requestReader(data);
        if (!request) return;
        requestReader = null;
        clientKey = checkRequest(request.head, host);
        if (request.rest.length > 0) push(request.rest);
      },
      // As obfs-server does, the answer waits for the target's first bytes
      // and goes out with them: obfs-local looks for the whole head in its
      // first read.
      serverEncode(data, push) {
        if (answered) return push(data);
        if (data.length === 0) return;
        answered = true;
        const head = responseHead({ accept: websocketAccept(clientKey), date: new Date().toUTCString(), nginx });
        push(Buffer.concat([Buffer.from(head, 'latin1'), data]));
      },
      clientDecode(data, push) {
        if (!responseReader) return push(data);
        const response = responseReader(data);
        if (!response) return;
        responseReader = null;
        checkResponse(response.head);
        if (response.rest.length > 0) push(response.rest);
      },
    };
  };
}
