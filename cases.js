// The cases a run measures, each reported under its index here. A case is
// a preset chain, carried by our relay client and server between the
// traffic engine's client and server (iperf3 -c and -s, or the built-in
// ones), or a reference row naming another implementation to measure the
// same way, on the same machine, in the same run. Edit freely: drop what
// you do not care about, add chains of your own (`cipherbench presets`
// lists every preset and method) or rows for other relays (docs/cases.md).
// `cipherbench run FILE` takes another file written like this one, as
// export default [...] or module.exports = [...].
//
// rc4-md5 and bf-cfb need OpenSSL's legacy provider: the runner starts their
// relays with node --openssl-legacy-provider.
export default [
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-128-ctr' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-192-ctr' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-128-cfb' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-192-cfb' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-cfb' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'camellia-128-cfb' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'camellia-192-cfb' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'camellia-256-cfb' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'rc4-md5' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'chacha20-ietf' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'bf-cfb' } }],
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }],
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-192-gcm' } }],
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }],
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'xchacha20-ietf-poly1305' } }],
  // The reference rows: how close is each chain to the machine's ceiling
  // (direct: no relay at all), to the Node data path's (plain: our relays
  // with no cipher), and to the C implementation with the same cipher
  // (skipped, saying how to install it, when shadowsocks-libev is not).
  // They come last so the chains keep the indexes older reports gave them.
  { impl: 'direct' },
  { impl: 'plain' },
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
  { impl: 'shadowsocks-libev', method: 'chacha20-ietf-poly1305' },
  { impl: 'shadowsocks-libev', method: 'aes-256-ctr' },
];
