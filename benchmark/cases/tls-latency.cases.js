// Connect time through a Shadowsocks pair, our trojan and ss pairs over
// tls, and the V2Ray and trojan-gfw trojan rows: what a TLS handshake
// costs a new connection (docs/tls.md). Run with
//   node bin/cipherbench.js run benchmark/cases/tls-latency.cases.js --duration 1 --repeat 3 --latency --no-ceiling
export default [
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }],
  [{ name: 'trojan' }, { name: 'tls' }],
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }, { name: 'tls' }],
  { impl: 'v2ray', protocol: 'trojan', tls: true },
  { impl: 'trojan-gfw' },
];
