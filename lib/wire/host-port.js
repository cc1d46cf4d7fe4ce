import net from 'node:net';

// HOST:PORT or [IPv6]:PORT as a preset parameter names a server (trojan's
// fallback): { host, port }, or null when the text is not one.
export function parseHostPort(text) {
  if (typeof text !== 'string') return null;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return null;
  const host = match[1] ?? match[2];
  if (match[1] !== undefined && !net.isIPv6(host)) return null;
  if (match[2] !== undefined && !/^[A-Za-z0-9.-]{1,253}$/.test(host)) return null;
  const port = Number(match[3]);
  return port >= 1 && port <= 65535 ? { host, port } : null;
}
