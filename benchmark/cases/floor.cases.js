// What each family costs per new connection and per kept-alive request,
// against Node's own floor (bare-node: accept, connect, pipe) and the
// reference implementations (docs/performance.md, "Connections and small
// requests against Node's floor"). Every row through the tunnel inbound, so
// wrk loads them all:
//   node bin/cipherbench.js requests benchmark/cases/floor.cases.js --repeat 3 --duration 3 --relative-to 1
//   node bin/cipherbench.js requests benchmark/cases/floor.cases.js --repeat 3 --duration 3 --relative-to 1 --new-connections
// Case 1 is bare-node. The TLS chains (trojan, vless) stand beside V2Ray
// and trojan-gfw for the same protocol, which need v2ray and trojan on
// PATH (SKIPPED without).
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const aead = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];

export default [
  { impl: 'direct' },
  { impl: 'bare-node' },
  { impl: 'plain' },
  aead('aes-128-gcm'),
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-128-ctr' } }],
  [{ name: 'ss-2022', params: { method: '2022-blake3-aes-128-gcm' } }],
  [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }],
  [{ name: 'ss-base' }, { name: 'aead-random-cipher', params: { method: 'aes-128-gcm' } }],
  [...aead('aes-128-gcm'), { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } }],
  [
    { name: 'ss-base' },
    { name: 'ssr-auth-aes128-md5' },
    { name: 'ss-stream-cipher', params: { method: 'aes-128-ctr' } },
  ],
  [{ name: 'trojan' }, { name: 'tls' }],
  [{ name: 'vless', params: { id: ID } }, { name: 'tls' }],
  { impl: 'shadowsocks-libev', method: 'aes-128-gcm' },
  { impl: 'shadowsocks-rust', method: 'aes-128-gcm' },
  { impl: 'v2ray', security: 'aes-128-gcm' },
  { impl: 'v2ray', protocol: 'trojan', tls: true },
  { impl: 'trojan-gfw' },
];
