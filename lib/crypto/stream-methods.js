import { createCipheriv, createDecipheriv, createHash, createSecretKey } from 'node:crypto';

// Shadowsocks stream ciphers: one cipher per direction for the whole
// connection, keyed by EVP_BytesToKey(password) and a random IV sent first.
// `legacy` marks the ones OpenSSL 3 keeps in its legacy provider. create()
// takes the key importKey() returned, once per process: a KeyObject makes
// each connection's cipher object cheaper than bytes (1.6 against 17.6 µs on
// Node 24, 3.8 against 4.5 on Node 20).
const ZERO_COUNTER = Buffer.alloc(4);
const asKeyObject = (key) => createSecretKey(key);

const rc4Md5 = (ivLength) => ({
  keyLength: 16,
  ivLength,
  legacy: true,
  importKey: (key) => key,
  create: (decrypt, key, iv) => {
    const rc4Key = createHash('md5').update(key).update(iv).digest();
    return (decrypt ? createDecipheriv : createCipheriv)('rc4', rc4Key, null);
  },
});

const openssl = (algorithm) => ({
  importKey: asKeyObject,
  create: (decrypt, key, iv) => (decrypt ? createDecipheriv : createCipheriv)(algorithm, key, iv),
});

export const STREAM_METHODS = {
  'aes-128-ctr': { keyLength: 16, ivLength: 16, ...openssl('aes-128-ctr') },
  'aes-192-ctr': { keyLength: 24, ivLength: 16, ...openssl('aes-192-ctr') },
  'aes-256-ctr': { keyLength: 32, ivLength: 16, ...openssl('aes-256-ctr') },
  'aes-128-cfb': { keyLength: 16, ivLength: 16, ...openssl('aes-128-cfb') },
  'aes-192-cfb': { keyLength: 24, ivLength: 16, ...openssl('aes-192-cfb') },
  'aes-256-cfb': { keyLength: 32, ivLength: 16, ...openssl('aes-256-cfb') },
  'camellia-128-cfb': { keyLength: 16, ivLength: 16, ...openssl('camellia-128-cfb') },
  'camellia-192-cfb': { keyLength: 24, ivLength: 16, ...openssl('camellia-192-cfb') },
  'camellia-256-cfb': { keyLength: 32, ivLength: 16, ...openssl('camellia-256-cfb') },
  // RC4 keyed by MD5(key || iv): the IV is on the wire but never fed to RC4,
  // and the key stays bytes for MD5. rc4-md5-6 is the same with a 6-byte IV.
  'rc4-md5': rc4Md5(16),
  'rc4-md5-6': rc4Md5(6),
  // OpenSSL's chacha20 takes a 16-byte IV: a 32-bit little-endian block
  // counter, then the 12-byte IETF nonce that Shadowsocks sends.
  'chacha20-ietf': {
    keyLength: 32,
    ivLength: 12,
    importKey: asKeyObject,
    create: (decrypt, key, iv) =>
      (decrypt ? createDecipheriv : createCipheriv)('chacha20', key, Buffer.concat([ZERO_COUNTER, iv])),
  },
  'bf-cfb': { keyLength: 16, ivLength: 8, legacy: true, ...openssl('bf-cfb') },
  // No cipher and no IV: the plain stream, which ShadowsocksR's auth_chain
  // protocols run under (blinksocks' `none`, keyed 16 bytes that nothing uses).
  none: {
    keyLength: 16,
    ivLength: 0,
    importKey: (key) => key,
    create: () => ({ update: (data) => data }),
  },
};
