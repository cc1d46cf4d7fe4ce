import net from 'node:net';

// Parses HOST:PORT, [IPv6]:PORT or a bare PORT (loopback) into { host, port }.
// Returns null when the text is not an endpoint. Port 0 (any free port,
// said on the `listening on` line) only where `anyPort` allows it.
export function parseEndpoint(text, { anyPort = false } = {}) {
  if (typeof text !== 'string') return null;
  let host = '127.0.0.1';
  let portText = text;
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  if (bracketed) {
    [, host, portText] = bracketed;
    if (!net.isIPv6(host)) return null;
  } else if (text.includes(':')) {
    const at = text.lastIndexOf(':');
    host = text.slice(0, at);
    portText = text.slice(at + 1);
    if (!host || host.includes(':')) return null;
    // Digits and dots are an IPv4 address or nothing (256.1.1.1 would
    // otherwise go to DNS as a name).
    if (/^[\d.]+$/.test(host) && !net.isIPv4(host)) return null;
  }
  if (!/^\d+$/.test(portText)) return null;
  const port = Number(portText);
  if (port < (anyPort ? 0 : 1) || port > 65535) return null;
  return { host, port };
}

export const formatEndpoint = ({ host, port }) => (net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`);

// A connection's "address:port" for log lines, read when a line first needs
// it: reading it at once costs every connection a getpeername() call,
// though most never log a line. An object whose toString() does the work,
// so `${peer}` in a template reads it. A socket already closed has no
// address left to read.
export function peerLabel(socket) {
  let text = null;
  const read = () =>
    socket.remoteAddress === undefined ? 'a closed connection' : `${socket.remoteAddress}:${socket.remotePort}`;
  return { toString: () => (text ??= read()) };
}
