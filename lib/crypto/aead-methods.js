import { createCipheriv, createDecipheriv } from 'node:crypto';
import { hchacha20 } from './hchacha20.js';

export const TAG_LENGTH = 16;

const openssl = (algorithm) => ({
  seal(key, nonce) {
    return createCipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH });
  },
  open(key, nonce) {
    return createDecipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH });
  },
});

// XChaCha20-Poly1305 = ChaCha20-Poly1305 under HChaCha20(key, nonce[0..16])
// with nonce 0x00000000 || nonce[16..24]. The Shadowsocks counter lives in the
// low bytes, so the subkey changes with every chunk.
const xchacha = () => {
  const subkey = Buffer.alloc(32);
  const innerNonce = Buffer.alloc(12);
  const prepare = (key, nonce) => {
    hchacha20(key, nonce.subarray(0, 16), subkey);
    nonce.copy(innerNonce, 4, 16, 24);
  };
  return {
    seal(key, nonce) {
      prepare(key, nonce);
      return createCipheriv('chacha20-poly1305', subkey, innerNonce, { authTagLength: TAG_LENGTH });
    },
    open(key, nonce) {
      prepare(key, nonce);
      return createDecipheriv('chacha20-poly1305', subkey, innerNonce, { authTagLength: TAG_LENGTH });
    },
  };
};

// SIP004 AEAD ciphers: salt length equals key length for every method here.
export const AEAD_METHODS = {
  'aes-128-gcm': { keyLength: 16, saltLength: 16, nonceLength: 12, ...openssl('aes-128-gcm') },
  'aes-192-gcm': { keyLength: 24, saltLength: 24, nonceLength: 12, ...openssl('aes-192-gcm') },
  'aes-256-gcm': { keyLength: 32, saltLength: 32, nonceLength: 12, ...openssl('aes-256-gcm') },
  'chacha20-ietf-poly1305': { keyLength: 32, saltLength: 32, nonceLength: 12, ...openssl('chacha20-poly1305') },
  'xchacha20-ietf-poly1305': { keyLength: 32, saltLength: 32, nonceLength: 24, ...xchacha() },
};
