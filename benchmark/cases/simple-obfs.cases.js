// simple-obfs beside shadowsocks-libev running it as a plugin: the figures
// in docs/simple-obfs.md. The same cipher everywhere, so the rows differ by
// the disguise and the implementation only.
const gcm = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];

export default [
  gcm,
  [...gcm, { name: 'simple-obfs', params: { mode: 'http' } }],
  [...gcm, { name: 'simple-obfs', params: { mode: 'tls' } }],
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm', obfs: 'http' },
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm', obfs: 'tls' },
];
