// The two methods where our relay pair is still behind shadowsocks-libev
// (docs/performance.md, issue 6), alone, so that more repeats fit in the
// time one round of benchmark/cases/peers.cases.js takes and each pair of runs is
// seconds apart on a noisy machine. Run with
//   node bin/cipherbench.js run benchmark/cases/aead-gap.cases.js --repeat 7 --no-ceiling \
//     --relative-to 'shadowsocks-libev aes-256-gcm'
const METHODS = ['aes-256-gcm', 'chacha20-ietf-poly1305'];

export default METHODS.flatMap((method) => [
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }],
  { impl: 'shadowsocks-libev', method },
]);
