import { createCipheriv, createDecipheriv, hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomView } from '../../crypto/random-pool.js';
import { protocolError } from '../../wire/protocol-error.js';
import { kdf, kdf16 } from './kdf.js';

// The AEAD request header, V2Ray 4.28+'s default (proxy/vmess/aead/):
//   auth ID (16) | sealed length (2 + 16) | connection nonce (8) | sealed header
// The auth ID is AES-128(KDF(cmd key, "AES Auth ID Encryption")) of
// time (8, big-endian seconds) | 4 random bytes | CRC32 of those 12; both
// seals are AES-128-GCM under keys and nonces derived from the command key,
// the auth ID and the connection nonce, with the auth ID as associated data.
export const AUTH_ID_LENGTH = 16;
export const LENGTH_RECORD = 2 + 16;
const NONCE_LENGTH = 8;
export const PREFIX_LENGTH = AUTH_ID_LENGTH + LENGTH_RECORD + NONCE_LENGTH;
// V2Ray accepts an auth ID whose time is within 120 s of its clock.
export const TIME_WINDOW_SECONDS = 120;
const TAG = 16;

export const authIdKey = (cmdKey) => kdf16(cmdKey, 'AES Auth ID Encryption');

const ecb = (key, decrypt) => {
  const cipher = (decrypt ? createDecipheriv : createCipheriv)('aes-128-ecb', key, null);
  cipher.setAutoPadding(false);
  return cipher;
};

// One AES-ECB object each way per auth key, not one per connection: ECB
// keeps nothing between blocks, and an auth ID is a single block.
const authCiphers = new WeakMap();
// A block it is given must be whole: a part would stay in the object and
// shift every later auth ID.
function authCipher(authKey, decrypt, block) {
  if (block.length !== AUTH_ID_LENGTH)
    throw new RangeError(`an auth ID is ${AUTH_ID_LENGTH} bytes, not ${block.length}`);
  let pair = authCiphers.get(authKey);
  if (!pair) {
    pair = { seal: null, open: null };
    authCiphers.set(authKey, pair);
  }
  const which = decrypt ? 'open' : 'seal';
  pair[which] ??= ecb(authKey, decrypt);
  return pair[which];
}

export function createAuthId(authKey, seconds, random = randomView(4)) {
  const plain = Buffer.alloc(16);
  plain.writeBigInt64BE(BigInt(seconds), 0);
  random.copy(plain, 8);
  plain.writeUInt32BE(crc32(plain.subarray(0, 12)), 12);
  return authCipher(authKey, false, plain).update(plain);
}

// The auth ID's time when it is one of this user's and fresh; null for
// bytes that are not an auth ID under this key (a legacy header, a probe).
export function openAuthId(authKey, authId, nowSeconds) {
  const plain = authCipher(authKey, true, authId).update(authId);
  if (plain.readUInt32BE(12) !== crc32(plain.subarray(0, 12))) return null;
  const seconds = Number(plain.readBigInt64BE(0));
  if (seconds < 0) return null;
  return { seconds, fresh: Math.abs(seconds - nowSeconds) <= TIME_WINDOW_SECONDS };
}

function gcmSeal(key, nonce, plain, aad) {
  const cipher = createCipheriv('aes-128-gcm', key, nonce);
  if (aad) cipher.setAAD(aad);
  return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

function gcmOpen(key, nonce, sealed, aad, what) {
  const decipher = createDecipheriv('aes-128-gcm', key, nonce);
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  const plain = decipher.update(sealed.subarray(0, sealed.length - TAG));
  try {
    decipher.final();
  } catch {
    throw protocolError(`${what}: authentication failed`);
  }
  return plain;
}

const headerKeys = (cmdKey, authId, nonce) => ({
  lengthKey: kdf16(cmdKey, 'VMess Header AEAD Key_Length', authId, nonce),
  lengthNonce: kdf(cmdKey, 'VMess Header AEAD Nonce_Length', authId, nonce).subarray(0, 12),
  payloadKey: kdf16(cmdKey, 'VMess Header AEAD Key', authId, nonce),
  payloadNonce: kdf(cmdKey, 'VMess Header AEAD Nonce', authId, nonce).subarray(0, 12),
});

export function sealRequestHeader(cmdKey, authId, plain, nonce = randomView(NONCE_LENGTH)) {
  const keys = headerKeys(cmdKey, authId, nonce);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(plain.length);
  return Buffer.concat([
    authId,
    gcmSeal(keys.lengthKey, keys.lengthNonce, length, authId),
    nonce,
    gcmSeal(keys.payloadKey, keys.payloadNonce, plain, authId),
  ]);
}

// Opens the length record of a header whose first PREFIX_LENGTH bytes are
// `prefix`; returns the sealed header's length on the wire and an opener.
export function openRequestPrefix(cmdKey, prefix) {
  const authId = prefix.subarray(0, AUTH_ID_LENGTH);
  const nonce = prefix.subarray(AUTH_ID_LENGTH + LENGTH_RECORD, PREFIX_LENGTH);
  const keys = headerKeys(cmdKey, authId, nonce);
  const length = gcmOpen(
    keys.lengthKey,
    keys.lengthNonce,
    prefix.subarray(AUTH_ID_LENGTH, AUTH_ID_LENGTH + LENGTH_RECORD),
    authId,
    'request header length',
  );
  return {
    sealedLength: length.readUInt16BE(0) + TAG,
    open: (sealed) => gcmOpen(keys.payloadKey, keys.payloadNonce, sealed, authId, 'request header'),
  };
}

// The AEAD request's response keys: SHA-256 of the request's, cut to 16.
export const responseSecrets = (bodyKey, bodyIv) => ({
  key: hash('sha256', bodyKey, 'buffer').subarray(0, 16),
  iv: hash('sha256', bodyIv, 'buffer').subarray(0, 16),
});

const responseKeys = ({ key, iv }) => ({
  lengthKey: kdf16(key, 'AEAD Resp Header Len Key'),
  lengthNonce: kdf(iv, 'AEAD Resp Header Len IV').subarray(0, 12),
  payloadKey: kdf16(key, 'AEAD Resp Header Key'),
  payloadNonce: kdf(iv, 'AEAD Resp Header IV').subarray(0, 12),
});

// Response: sealed length (2 + 16) | sealed header, no associated data.
export function sealResponseHeader(secrets, plain) {
  const keys = responseKeys(secrets);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(plain.length);
  return Buffer.concat([
    gcmSeal(keys.lengthKey, keys.lengthNonce, length),
    gcmSeal(keys.payloadKey, keys.payloadNonce, plain),
  ]);
}

export function openResponseLength(secrets) {
  const keys = responseKeys(secrets);
  return {
    sealedLength: (record) =>
      gcmOpen(keys.lengthKey, keys.lengthNonce, record, null, 'response header length').readUInt16BE(0) + TAG,
    open: (sealed) => gcmOpen(keys.payloadKey, keys.payloadNonce, sealed, null, 'response header'),
  };
}
