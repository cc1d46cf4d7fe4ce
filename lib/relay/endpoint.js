import net from 'node:net';

// Parses HOST:PORT, [IPv6]:PORT or a bare PORT (loopback) into { host, port }.
// Returns null when the text is not an endpoint.
export function parseEndpoint(text) {
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
  }
  if (!/^\d+$/.test(portText)) return null;
  const port = Number(portText);
  if (port < 1 || port > 65535) return null;
  return { host, port };
}

export const formatEndpoint = ({ host, port }) => (net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`);
