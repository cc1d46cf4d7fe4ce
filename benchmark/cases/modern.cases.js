// The methods a server operator picks between today (issue 17): Shadowsocks
// 2022 and the two SIP004 AEAD methods every client still speaks, ours and
// shadowsocks-rust's, beside the machine's and the Node data path's
// ceilings. Run with
//   node bin/cipherbench.js run benchmark/cases/modern.cases.js --repeat 5 \
//     --relative-to 'shadowsocks-rust aes-256-gcm'
// Each ss-2022 chain sits next to the ss-aead-cipher chain with the same
// AEAD, so the cost of SIP022 (headers per connection, the same data path)
// reads off two neighbouring rows; --filter '"name":"ss-' runs those six
// chains of ours alone. shadowsocks-rust rows need ssserver and
// sslocal on PATH (cargo install shadowsocks-rust) and are SKIPPED without.
const PAIRS = [
  ['2022-blake3-aes-128-gcm', 'aes-128-gcm'],
  ['2022-blake3-aes-256-gcm', 'aes-256-gcm'],
  ['2022-blake3-chacha20-poly1305', 'chacha20-ietf-poly1305'],
];

export default [
  { impl: 'direct' },
  { impl: 'plain' },
  ...PAIRS.flatMap(([method2022, method]) => [
    [{ name: 'ss-2022', params: { method: method2022 } }],
    { impl: 'shadowsocks-rust', method: method2022 },
    [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }],
    { impl: 'shadowsocks-rust', method },
  ]),
];
