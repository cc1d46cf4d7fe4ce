// The request workload (docs/requests.md): what a chain costs per request
// and per connection, not per byte. Each of our chains runs through the
// relay client's tunnel and its SOCKS5 inbound; shadowsocks-libev (ss-tunnel,
// ss-local), shadowsocks-rust (sslocal tunnel, socks) and V2Ray (dokodemo-door,
// socks) run beside them with the same ciphers. Run with
//   node bin/cipherbench.js requests benchmark/cases/requests.cases.js --repeat 3
// and again with --new-connections: a handshake a request, which is where
// the VMess AEAD header's KDF, Shadowsocks 2022's salt and timestamp and
// the obfs handshakes show. shadowsocks-rust rows need ssserver and sslocal
// on PATH and are SKIPPED without; the HTTP kinds (http-connect,
// http-proxy) are a case field away: { chain, inbound: 'http-proxy' }.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const aead = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const CHAINS = [
  aead('aes-128-gcm'),
  aead('chacha20-ietf-poly1305'),
  [{ name: 'ss-2022', params: { method: '2022-blake3-aes-128-gcm' } }],
  [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }],
  [...aead('aes-128-gcm'), { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } }],
];
const INBOUNDS = ['tunnel', 'socks5'];

export default [
  { impl: 'direct' },
  ...INBOUNDS.map((inbound) => ({ impl: 'plain', inbound })),
  ...CHAINS.flatMap((chain) => INBOUNDS.map((inbound) => ({ chain, inbound }))),
  ...['aes-128-gcm', 'chacha20-ietf-poly1305'].flatMap((method) =>
    INBOUNDS.map((inbound) => ({ impl: 'shadowsocks-libev', method, inbound })),
  ),
  ...['aes-128-gcm', '2022-blake3-aes-128-gcm'].flatMap((method) =>
    INBOUNDS.map((inbound) => ({ impl: 'shadowsocks-rust', method, inbound })),
  ),
  ...INBOUNDS.map((inbound) => ({ impl: 'v2ray', security: 'aes-128-gcm', inbound })),
];
