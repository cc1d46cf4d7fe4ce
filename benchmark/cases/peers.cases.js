// The cases behind docs/performance.md (issue 6): our relay pair beside
// shadowsocks-libev and blinksocks 3.3.0 for the methods the targets name,
// with the machine's and the Node data path's ceilings. Run with
//   node bin/cipherbench.js run benchmark/cases/peers.cases.js --repeat 3 \
//     --relative-to 'shadowsocks-libev aes-256-gcm'
// and again with --parallel 8 (and 20). A peer that is not installed is
// SKIPPED with its install hint: shadowsocks-rust rows need ssserver and
// sslocal on PATH (cargo install shadowsocks-rust; a reference only, and
// only its AEAD methods), blinksocks rows need blinksocks@3.3.0 resolvable
// (CIPHERBENCH_BLINKSOCKS=folder).
const METHODS = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305', 'aes-256-ctr', 'aes-256-cfb'];
const cipherOf = (method) =>
  method.endsWith('-ctr') || method.endsWith('-cfb') ? 'ss-stream-cipher' : 'ss-aead-cipher';
const chain = (method) => [{ name: 'ss-base' }, { name: cipherOf(method), params: { method } }];
const AEAD = METHODS.filter((method) => cipherOf(method) === 'ss-aead-cipher');
const isAead = (method) => AEAD.includes(method);

export default [
  { impl: 'direct' },
  { impl: 'plain' },
  ...METHODS.flatMap((method) => [
    chain(method),
    { impl: 'shadowsocks-libev', method },
    ...(isAead(method) ? [{ impl: 'shadowsocks-rust', method }] : []),
  ]),
  ...AEAD.map((method) => ({ impl: 'blinksocks', presets: chain(method) })),
];
