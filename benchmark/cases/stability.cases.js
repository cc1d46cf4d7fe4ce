// The cases behind docs/statistics.md's figures: our aes-256-gcm and
// chacha20-ietf-poly1305 pairs beside shadowsocks-libev's and
// shadowsocks-rust's, run twice back to back to see whether ratios hold
// from one run to the next:
//   node bin/cipherbench.js run benchmark/cases/stability.cases.js --no-ceiling \
//     --relative-to 'shadowsocks-libev aes-256-gcm' --confidence 95,5 --max-time 480
// and the same with --rate 1G --max-time 300 for the cost per GB.
const chain = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const METHODS = ['aes-256-gcm', 'chacha20-ietf-poly1305'];

export default METHODS.flatMap((method) => [
  chain(method),
  { impl: 'shadowsocks-libev', method },
  { impl: 'shadowsocks-rust', method },
]);
