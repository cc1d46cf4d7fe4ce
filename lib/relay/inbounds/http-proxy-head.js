// The head of an HTTP/1.x request as a proxy reads it (RFC 9112): a request
// line, header lines, an empty line. Bounded, and strict where a lenient
// reader would let two parties disagree about where a request ends (folded
// lines, a space before the colon, two Content-Lengths).
const MAX_HEAD_BYTES = 16 * 1024;
const END = Buffer.from('\r\n\r\n');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VERSION = /^HTTP\/1\.[01]$/;

// A refusal a proxy answers with: the status, and the one line logged.
const httpRefusal = (status, reason) =>
  Object.assign(new Error(reason), { status, code: 'ERR_CIPHERBENCH_HTTP_REFUSAL' });
export const isHttpRefusal = (error) => error?.code === 'ERR_CIPHERBENCH_HTTP_REFUSAL';

const STATUS_TEXT = {
  400: 'Bad Request',
  407: 'Proxy Authentication Required',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  505: 'HTTP Version Not Supported',
};

// A whole response, closing the connection, saying why in its body.
export function refusalResponse(status, reason, extraHeaders = []) {
  const body = `${status} ${STATUS_TEXT[status]}: ${reason}\n`;
  return Buffer.from(
    [
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}`,
      'Content-Type: text/plain',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      ...extraHeaders,
      '',
      body,
    ].join('\r\n'),
  );
}

// { method, target, version, headers: [[name, value, line]], length } once
// `held` holds a whole head (length: its bytes, the empty line included),
// null while it needs more; throws an httpRefusal for one no proxy should
// pass on.
export function parseRequestHead(held) {
  const end = held.indexOf(END);
  if (end === -1) {
    if (held.length > MAX_HEAD_BYTES) throw httpRefusal(431, `request head over ${MAX_HEAD_BYTES} bytes`);
    return null;
  }
  if (end + END.length > MAX_HEAD_BYTES) throw httpRefusal(431, `request head over ${MAX_HEAD_BYTES} bytes`);
  const [requestLine, ...lines] = held.subarray(0, end).toString('latin1').split('\r\n');
  const parts = requestLine.split(' ');
  if (parts.length !== 3 || !TOKEN.test(parts[0]) || parts[1] === '')
    throw httpRefusal(400, `malformed request line ${JSON.stringify(requestLine.slice(0, 80))}`);
  const [method, target, version] = parts;
  if (!VERSION.test(version)) {
    if (/^HTTP\/\d\.\d$/.test(version)) throw httpRefusal(505, `${version} (HTTP/1.0 and 1.1 only)`);
    throw httpRefusal(400, `malformed request line ${JSON.stringify(requestLine.slice(0, 80))}`);
  }
  const headers = lines.map((line) => {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    if (colon < 1 || !TOKEN.test(name))
      throw httpRefusal(400, `malformed header line ${JSON.stringify(line.slice(0, 80))}`);
    return [name.toLowerCase(), line.slice(colon + 1).trim(), line];
  });
  return { method, target, version, headers, length: end + END.length };
}

export const headerValues = (head, name) =>
  head.headers.filter(([header]) => header === name).map(([, value]) => value);

// The bytes of body that follow a request head: a Content-Length, or none.
// A chunked body would need its framing read to find the next request; no
// load this tool makes sends one, so it is refused rather than guessed at.
export function bodyLength(head) {
  if (headerValues(head, 'transfer-encoding').length > 0)
    throw httpRefusal(501, 'Transfer-Encoding in a request (only Content-Length bodies are passed on)');
  const lengths = [...new Set(headerValues(head, 'content-length'))];
  if (lengths.length === 0) return 0;
  if (lengths.length > 1 || !/^\d{1,15}$/.test(lengths[0]))
    throw httpRefusal(400, `bad Content-Length ${JSON.stringify(lengths.join(', '))}`);
  return Number(lengths[0]);
}

// host:port or [IPv6]:port, as CONNECT names its target (a port is required).
export function parseAuthority(text, defaultPort = null) {
  const match =
    /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(text) ?? /^([^\s:/[\]@]{1,255})(?::(\d{1,5}))?$/.exec(text);
  if (!match) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port === null || port < 1 || port > 65535) return null;
  return { host: match[1], port };
}
