// @ts-check
// The client's inbound for a case's, in the inbound format V2Ray 4.x and
// Xray-core share: dokodemo-door forwards to the target (TCP, and UDP too
// with `udp`); socks (no authentication) and http (CONNECT and plain) let
// the application name it.
export function v2rayClientInbound(inbound, port, forwardPort, udp) {
  if (inbound === 'socks5')
    return { listen: '127.0.0.1', port, protocol: 'socks', settings: { auth: 'noauth', udp: false } };
  if (inbound === 'http-connect' || inbound === 'http-proxy')
    return { listen: '127.0.0.1', port, protocol: 'http', settings: {} };
  return {
    listen: '127.0.0.1',
    port,
    protocol: 'dokodemo-door',
    settings: { address: '127.0.0.1', port: forwardPort, network: udp ? 'tcp,udp' : 'tcp' },
  };
}
