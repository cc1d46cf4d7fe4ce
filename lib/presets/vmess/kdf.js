import { createHmac } from 'node:crypto';

// VMess AEAD's key derivation (V2Ray proxy/vmess/aead/kdf.go): HMAC chains
// in which each path element keys an HMAC whose hash is the HMAC one level
// down, the innermost being HMAC-SHA256 keyed with "VMess AEAD KDF". A
// level costs two calls of the level below, so a path of n elements costs
// 2^n HMAC-SHA256s: paths here are at most three long, once a connection.
const BLOCK = 64;
const IPAD = 0x36;
const OPAD = 0x5c;

const hmacSha256 = (key) => (message) => createHmac('sha256', key).update(message).digest();

// HMAC over any hash function with SHA-256's block size, as Go's hmac.New
// does when given another HMAC as the hash: a key longer than a block is
// hashed first, then padded with zeros.
function hmacOver(hash, key) {
  const padded = Buffer.alloc(BLOCK);
  (key.length > BLOCK ? hash(key) : key).copy(padded);
  const inner = Buffer.alloc(BLOCK);
  const outer = Buffer.alloc(BLOCK);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = padded[i] ^ IPAD;
    outer[i] = padded[i] ^ OPAD;
  }
  return (message) => hash(Buffer.concat([outer, hash(Buffer.concat([inner, message]))]));
}

const bytes = (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8'));

// KDF(key, ...path) -> 32 bytes; kdf16 the first 16, an AES-128 key.
export function kdf(key, ...path) {
  let hash = hmacSha256('VMess AEAD KDF');
  for (const element of path) hash = hmacOver(hash, bytes(element));
  return hash(key);
}

export const kdf16 = (key, ...path) => kdf(key, ...path).subarray(0, 16);
