// UDP through the relays (docs/udp.md): our pair beside shadowsocks-libev's
// and shadowsocks-rust's with the same method, and `direct` (iperf3 -u to
// iperf3 -s, no relay) as the machine's ceiling. Run with
//   node bin/cipherbench.js run benchmark/cases/udp.cases.js --udp --rate 200M \
//     --repeat 3 --no-ceiling --relative-to 'shadowsocks-libev aes-256-gcm'
// Rows whose implementation is missing are skipped, saying how to install
// it; shadowsocks-libev has no 2022 methods, shadowsocks-rust no stream
// ciphers by default. V2Ray's VMess has no AES-256: its aes-128-gcm (the
// same AES-GCM code, four rounds fewer per block) stands beside the
// aes-256-gcm rows, its chacha20-poly1305 beside theirs.
const aead = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];

export default [
  { impl: 'direct' },
  aead('aes-256-gcm'),
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
  { impl: 'shadowsocks-rust', method: 'aes-256-gcm' },
  { impl: 'v2ray', security: 'aes-128-gcm' },
  aead('chacha20-ietf-poly1305'),
  { impl: 'shadowsocks-libev', method: 'chacha20-ietf-poly1305' },
  { impl: 'shadowsocks-rust', method: 'chacha20-ietf-poly1305' },
  { impl: 'v2ray', security: 'chacha20-poly1305' },
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }],
  { impl: 'shadowsocks-libev', method: 'aes-256-ctr' },
  [{ name: 'ss-2022', params: { method: '2022-blake3-aes-256-gcm' } }],
  { impl: 'shadowsocks-rust', method: '2022-blake3-aes-256-gcm' },
];
