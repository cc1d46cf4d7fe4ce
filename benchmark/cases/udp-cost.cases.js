// What a datagram costs our UDP relays beside the references' (docs/udp.md,
// "Where a datagram's cost goes"): one fixed rate, so the CPU per GB is
// the figure. Run with
//   node bin/cipherbench.js run benchmark/cases/udp-cost.cases.js --udp --rate 50M \
//     --repeat 5 --duration 3 --no-ceiling --relative-to 'shadowsocks-libev aes-256-gcm'
const aead = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];

export default [
  aead('aes-256-gcm'),
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
  [{ name: 'ss-2022', params: { method: '2022-blake3-aes-256-gcm' } }],
  { impl: 'shadowsocks-rust', method: '2022-blake3-aes-256-gcm' },
];
