import { createCipheriv } from 'node:crypto';
import { poly1305Parts } from './poly1305-wasm.js';

// The original ChaCha20-Poly1305 (draft-agl-tls-chacha20poly1305, libsodium's
// crypto_aead_chacha20poly1305): an 8-byte nonce and a 64-bit block counter,
// which shadowsocks-libev 2.x and blinksocks call "chacha20-poly1305".
//
// Its keystream is the IETF one under the 12-byte nonce 0x00000000 || nonce
// (the counter's high word is zero below 2^32 blocks), so node:crypto's
// chacha20 makes it. Its MAC is not: Poly1305 runs over
//   AD || le64(len AD) || ciphertext || le64(len ciphertext)
// with no padding to 16 bytes (RFC 8439 pads both and puts the lengths
// last), so node:crypto's 'chacha20-poly1305' cannot produce it and the tag
// is computed here, in WebAssembly (poly1305-wasm.js): this MAC covers the
// whole payload, where JavaScript's Poly1305 was the relay's bottleneck.
// Shadowsocks uses no AD.
const NONCE_LENGTH = 8;
const TAG_LENGTH = 16;
const BLOCK = 64;
const ZERO_BLOCK = Buffer.alloc(BLOCK);
const NO_AD_LENGTH = Buffer.alloc(8);

// node:crypto's chacha20 IV: a little-endian 32-bit counter, then the nonce.
const keystream = (key, nonce) => {
  if (nonce.length !== NONCE_LENGTH)
    throw new RangeError(`the original ChaCha20-Poly1305 takes an 8-byte nonce, not ${nonce.length}`);
  const iv = Buffer.alloc(16);
  nonce.copy(iv, 8);
  const cipher = createCipheriv('chacha20', key, iv);
  // Block 0 keys Poly1305; the message starts at block 1.
  const polyKey = cipher.update(ZERO_BLOCK).subarray(0, 32);
  return { cipher, polyKey };
};

// Writes the tag of the ciphertext, given as the parts it was made in (no
// AD), to out at outOffset.
function tag(polyKey, parts, out, outOffset) {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const lengthBytes = Buffer.alloc(8);
  lengthBytes.writeUInt32LE(length >>> 0, 0);
  lengthBytes.writeUInt32LE(Math.floor(length / 2 ** 32), 4);
  poly1305Parts(polyKey, [NO_AD_LENGTH, ...parts, lengthBytes], out, outOffset);
}

// One record: its keystream, and the ciphertext its tag covers, given as
// the parts it passed in.
function macedRecord(key, nonce) {
  const { cipher, polyKey } = keystream(key, nonce);
  const parts = [];
  return {
    crypt: (data) => cipher.update(data),
    cover: (ciphertext) => parts.push(ciphertext),
    tag() {
      const out = Buffer.alloc(TAG_LENGTH);
      tag(polyKey, parts, out, 0);
      return out;
    },
  };
}

// The shape of node:crypto's AEAD cipher objects (update, final,
// getAuthTag / setAuthTag), so a preset seals and opens with either.
export function createSeal(key, nonce) {
  const record = macedRecord(key, nonce);
  let authTag = null;
  return {
    update(plaintext) {
      const ciphertext = record.crypt(plaintext);
      record.cover(ciphertext);
      return ciphertext;
    },
    final() {
      authTag = record.tag();
      return Buffer.alloc(0);
    },
    getAuthTag: () => authTag,
  };
}

// final() throws when the tag does not match, as node:crypto's does.
export function createOpen(key, nonce) {
  const record = macedRecord(key, nonce);
  let expected = null;
  return {
    setAuthTag(given) {
      expected = given;
    },
    update(ciphertext) {
      record.cover(ciphertext);
      return record.crypt(ciphertext);
    },
    final() {
      const computed = record.tag();
      let diff = expected?.length === TAG_LENGTH ? 0 : 1;
      for (let i = 0; i < TAG_LENGTH; i++) diff |= computed[i] ^ (expected?.[i] ?? 0);
      if (diff !== 0) throw new Error('Unsupported state or unable to authenticate data');
      return Buffer.alloc(0);
    },
  };
}
