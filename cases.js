// The cases a run measures: each is one preset chain, carried by a relay
// client and server between iperf3 -c and iperf3 -s, and each is reported
// under its index here. Edit freely: drop what you do not care about, add
// chains of your own (`cipherbench presets` lists every preset and method).
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
];
