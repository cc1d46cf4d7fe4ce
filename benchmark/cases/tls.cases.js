// Trojan, VLESS and TLS beside Shadowsocks, ours and the references, in one
// run so every pair meets the same machine (docs/tls.md). Run with
//   node bin/cipherbench.js run benchmark/cases/tls.cases.js --repeat 5 --no-ceiling \
//     --relative-to 'v2ray trojan + tls'
// Our TLS chains get a certificate made for each run, which their client
// verifies, as the v2ray and trojan-gfw rows do.
const ID = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
const ss = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

export default [
  ss('aes-128-gcm'),
  ss('chacha20-ietf-poly1305'),
  ...SUITES.map((ciphers) => [{ name: 'ss-base' }, { name: 'tls', params: { ciphers } }]),
  [{ name: 'trojan' }, { name: 'tls' }],
  [{ name: 'vless', params: { id: ID } }, { name: 'tls' }],
  [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }, { name: 'tls' }],
  [...ss('aes-128-gcm'), { name: 'tls' }],
  { impl: 'v2ray', protocol: 'trojan', tls: true },
  { impl: 'v2ray', protocol: 'vless', tls: true },
  { impl: 'v2ray', protocol: 'vmess', security: 'aes-128-gcm', tls: true },
  { impl: 'trojan-gfw' },
];
