import net from 'node:net';

// A relay server left running must not become an open proxy: unless told
// otherwise it only connects to this machine. Names other than localhost are
// refused without a DNS lookup, so hostile headers cost nothing.
export function isLoopbackHost(host) {
  if (host === 'localhost') return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  if (net.isIPv6(host)) {
    const normal = new net.SocketAddress({ address: host, family: 'ipv6' }).address;
    return normal === '::1' || /^::ffff:127\./.test(normal);
  }
  return false;
}
