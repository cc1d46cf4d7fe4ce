import { randomBytes } from 'node:crypto';
import { blake3 } from '@noble/hashes/blake3';
import { AEAD_METHODS } from './aead-methods.js';

// SIP022 (Shadowsocks 2022): the same AEADs as SIP004, keyed by a
// pre-shared key given as base64 (never derived from a password), with a
// BLAKE3 session subkey per stream. Salt length equals key length.
export const AEAD_2022_METHODS = {
  '2022-blake3-aes-128-gcm': { keyLength: 16, aead: AEAD_METHODS['aes-128-gcm'] },
  '2022-blake3-aes-256-gcm': { keyLength: 32, aead: AEAD_METHODS['aes-256-gcm'] },
  '2022-blake3-chacha20-poly1305': { keyLength: 32, aead: AEAD_METHODS['chacha20-ietf-poly1305'] },
};

const SESSION_SUBKEY_CONTEXT = 'shadowsocks 2022 session subkey';

// session_subkey := blake3::derive_key(context, key_material: psk + salt),
// as long as the method's key (BLAKE3's output is extendable; a shorter one
// is the longer one's prefix).
// derive_key first hashes the context into a key; that key is the same
// for every stream, so it is hashed once, into a hasher per output length
// that each derivation clones (the context's hash was half of BLAKE3's
// work per stream).
const contextHashers = new Map();
export function deriveSessionSubkey(psk, salt) {
  let base = contextHashers.get(psk.length);
  if (!base) {
    base = blake3.create({ context: SESSION_SUBKEY_CONTEXT, dkLen: psk.length });
    contextHashers.set(psk.length, base);
  }
  const digest = base.clone().update(psk).update(salt).digest();
  return Buffer.from(digest.buffer, digest.byteOffset, digest.length);
}

// A fresh PSK for the method, as shadowsocks-rust and `openssl rand -base64 N` print it.
export const newPsk = (method) => randomBytes(AEAD_2022_METHODS[method].keyLength).toString('base64');

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// The PSK's bytes, or { problem } saying what is wrong with the text and
// how to make a right one. Standard base64 with padding only: Buffer.from
// would quietly skip stray characters and yield some other key.
export function parsePsk(method, text) {
  const { keyLength } = AEAD_2022_METHODS[method];
  const howTo = `make one with \`cipherbench key --method ${method}\` or \`openssl rand -base64 ${keyLength}\``;
  if (typeof text !== 'string' || !BASE64.test(text) || text.length === 0) {
    return { problem: `${method} takes a base64 pre-shared key of ${keyLength} bytes, not a password; ${howTo}` };
  }
  const psk = Buffer.from(text, 'base64');
  if (psk.length !== keyLength) {
    return { problem: `${method} takes a base64 key of ${keyLength} bytes, got ${psk.length}; ${howTo}` };
  }
  return { psk };
}
