import { hash } from 'node:crypto';

// VMess AEAD's key derivation (V2Ray proxy/vmess/aead/kdf.go): HMAC chains
// in which each path element keys an HMAC whose hash is the HMAC one level
// down, the innermost being HMAC-SHA256 keyed with "VMess AEAD KDF". A
// level costs two calls of the level below, so a path of n elements costs
// 2^n HMAC-SHA256s: a connection's request header derives four keys and
// nonces with paths three long, 32 HMAC-SHA256s on each relay.
// Each HMAC-SHA256 here is two one-shot SHA-256s over its pads, which are
// the same for every call: an Hmac object a call (and the collector's
// work finalising it) was two thirds of our VMess pipeline's CPU per
// connection.
const BLOCK = 64;
const IPAD = 0x36;
const OPAD = 0x5c;

const sha256 = (data) => hash('sha256', data, 'buffer');

// The inner and outer pads of an HMAC key, for a hash of SHA-256's block
// size: a key longer than a block is hashed first, then padded with zeros
// (as Go's hmac.New does, whatever the hash it is given).
function pads(key, hashOf) {
  const padded = Buffer.alloc(BLOCK);
  (key.length > BLOCK ? hashOf(key) : key).copy(padded);
  const inner = Buffer.allocUnsafe(BLOCK);
  const outer = Buffer.allocUnsafe(BLOCK);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = padded[i] ^ IPAD;
    outer[i] = padded[i] ^ OPAD;
  }
  return { inner, outer };
}

// HMAC keyed with `key` over the hash function `hashOf`.
function hmacOver(hashOf, key) {
  const { inner, outer } = pads(key, hashOf);
  return (message) => hashOf(Buffer.concat([outer, hashOf(Buffer.concat([inner, message]))]));
}

// The innermost level: HMAC-SHA256 keyed with "VMess AEAD KDF", its pads
// computed once.
const base = hmacOver(sha256, Buffer.from('VMess AEAD KDF'));

const bytes = (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8'));

// KDF(key, ...path) -> 32 bytes; kdf16 the first 16, an AES-128 key.
export function kdf(key, ...path) {
  let hashOf = base;
  for (const element of path) hashOf = hmacOver(hashOf, bytes(element));
  return hashOf(key);
}

export const kdf16 = (key, ...path) => kdf(key, ...path).subarray(0, 16);
