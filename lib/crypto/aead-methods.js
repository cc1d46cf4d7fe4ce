import { createCipheriv, createDecipheriv, createSecretKey } from 'node:crypto';
import { createOpen, createSeal } from './chacha20-poly1305-original.js';
import { hchacha20 } from './hchacha20.js';
import { addLittleEndian } from './nonce.js';
import { chachaShortRecords, gcmShortRecords } from './short-records.js';

export const TAG_LENGTH = 16;

// A key reaches node:crypto as bytes or as a KeyObject. Node 24 first tries
// bytes as every kind of key object, which costs about 15 µs per cipher
// object against 2 µs for a KeyObject (Node 20: 2.3 against 2.1); with a
// cipher object per record that decides the relay's speed. So a connection
// imports its subkey once (importKey) and seal/open take what it returns.
const openssl = (algorithm) => ({
  importKey: (subkey) => createSecretKey(subkey),
  seal(key, nonce) {
    return createCipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH });
  },
  open(key, nonce) {
    return createDecipheriv(algorithm, key, nonce, { authTagLength: TAG_LENGTH });
  },
});

// XChaCha20-Poly1305 = ChaCha20-Poly1305 under HChaCha20(key, nonce[0..16])
// with nonce 0x00000000 || nonce[16..24]. The Shadowsocks counter lives in the
// low bytes, so the subkey changes with every chunk, and the connection's key
// stays bytes for HChaCha20.
const xchacha = () => {
  const subkey = Buffer.alloc(32);
  const innerNonce = Buffer.alloc(12);
  const prepare = (key, nonce) => {
    hchacha20(key, nonce.subarray(0, 16), subkey);
    nonce.copy(innerNonce, 4, 16, 24);
    return createSecretKey(subkey);
  };
  return {
    importKey: (key) => key,
    seal(key, nonce) {
      return createCipheriv('chacha20-poly1305', prepare(key, nonce), innerNonce, { authTagLength: TAG_LENGTH });
    },
    open(key, nonce) {
      return createDecipheriv('chacha20-poly1305', prepare(key, nonce), innerNonce, { authTagLength: TAG_LENGTH });
    },
  };
};

// SIP004 AEAD ciphers: salt length equals key length for every method here.
// seal(importKey(subkey), nonce) / open(...) give a node:crypto object for one
// record of any length; shortRecords(subkey, importKey(subkey), { offset,
// step }) seals and opens a sequence of records of at most 16 bytes without
// one (short-records.js), for the 2-byte lengths.
const gcm = (bits) => ({
  keyLength: bits / 8,
  saltLength: bits / 8,
  nonceLength: 12,
  ...openssl(`aes-${bits}-gcm`),
  shortRecords: (subkey, key, sequence) => gcmShortRecords(`aes-${bits}-ecb`, key, sequence),
});

// Short records sealed and opened by the method's own cipher objects, for a
// method too rarely used to have a faster path in short-records.js.
const recordsThroughMethod = (seal, open, nonceLength) => (subkey, key, { offset, step }) => {
  const nonce = addLittleEndian(Buffer.alloc(nonceLength), offset);
  return {
    seal(plaintext, out, at) {
      const cipher = seal(key, nonce);
      addLittleEndian(nonce, step);
      cipher.update(plaintext).copy(out, at);
      cipher.final();
      cipher.getAuthTag().copy(out, at + plaintext.length);
    },
    open(record, out) {
      const n = record.length - TAG_LENGTH;
      const decipher = open(key, nonce);
      addLittleEndian(nonce, step);
      decipher.setAuthTag(record.subarray(n));
      const plaintext = decipher.update(record.subarray(0, n));
      try {
        decipher.final();
      } catch {
        return false;
      }
      plaintext.copy(out);
      return true;
    },
  };
};

// The original, 8-byte-nonce ChaCha20-Poly1305 (chacha20-poly1305-original.js).
const chachaOriginal = {
  keyLength: 32,
  saltLength: 32,
  nonceLength: 8,
  importKey: (subkey) => createSecretKey(subkey),
  seal: createSeal,
  open: createOpen,
  shortRecords: recordsThroughMethod(createSeal, createOpen, 8),
};

export const AEAD_METHODS = {
  'aes-128-gcm': gcm(128),
  'aes-192-gcm': gcm(192),
  'aes-256-gcm': gcm(256),
  'chacha20-poly1305': chachaOriginal,
  'chacha20-ietf-poly1305': {
    keyLength: 32,
    saltLength: 32,
    nonceLength: 12,
    ...openssl('chacha20-poly1305'),
    shortRecords: (subkey, key, sequence) => chachaShortRecords(subkey, sequence),
  },
  'xchacha20-ietf-poly1305': {
    keyLength: 32,
    saltLength: 32,
    nonceLength: 24,
    ...xchacha(),
    shortRecords: (subkey, key, sequence) => chachaShortRecords(subkey, { ...sequence, extended: true }),
  },
};
