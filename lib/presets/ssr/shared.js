import { createCipheriv, createDecipheriv, createHmac, randomInt } from 'node:crypto';
import { evpBytesToKey } from '../../crypto/evp-bytes-to-key.js';
import { addressHeaderLength } from '../../wire/address-header.js';
import { protocolError } from '../../wire/protocol-error.js';

// What ShadowsocksR's auth_aes128_* and auth_chain_* protocols share: where
// they sit in a chain, the stream cipher's key and IV they authenticate
// with, the AES-encrypted 16-byte handshake block and its clock check.

// SSR's protocol layer wraps the address header and data before the stream
// cipher encrypts them (obfs, if any, comes after).
export function placement(chain, index) {
  const self = chain[index].name;
  if (index !== 1)
    return `${self} must come right after the address preset (ShadowsocksR's protocol layer wraps the address header)`;
  if (chain[index + 1]?.name !== 'ss-stream-cipher') {
    return `${self} must be followed by ss-stream-cipher (its handshake is authenticated with that cipher's key and IV)`;
  }
  return undefined;
}

// The key and the client's IV (the one sent client -> server: on the client
// its own, on the server the one received), from ss-stream-cipher below.
export function streamCipherKeys(connection, role) {
  const published = connection.layers.streamCipher;
  return { key: published.key, clientIv: role === 'client' ? published.sentIv : published.receivedIv };
}

export const hmac = (algorithm, key, data) => createHmac(algorithm, key).update(data).digest();

// The handshake block is AES-128-CBC with a zero IV over exactly one block,
// i.e. AES-128-ECB, keyed by EVP_BytesToKey(base64(user key) + salt).
export const blockKey = (userKey, salt) => evpBytesToKey(userKey.toString('base64') + salt, 16);

export function encryptBlock(key, block) {
  const cipher = createCipheriv('aes-128-ecb', key, null).setAutoPadding(false);
  return cipher.update(block);
}

export function decryptBlock(key, block) {
  const decipher = createDecipheriv('aes-128-ecb', key, null).setAutoPadding(false);
  return decipher.update(block);
}

// Each chunk's (auth_aes128) or frame's (auth_chain) HMAC key is the user
// key and its number: one buffer per direction, its last four bytes
// rewritten (createHmac copies the key).
export function macKeys(userKey) {
  const key = Buffer.alloc(userKey.length + 4);
  userKey.copy(key);
  return (id) => {
    key.writeUInt32LE(id, userKey.length);
    return key;
  };
}

export const unixTime = (now = Date.now) => Math.floor(now() / 1000) >>> 0;

// The Python server accepts a handshake whose clock is within a day of its
// own (max_time_dif), compared as a signed 32-bit difference. A replay
// inside that day is refused by the handshake's record in the relay's salt
// filter (recordHandshake), not by the client id's window, which forgets.
const MAX_CLOCK_SKEW = 24 * 60 * 60;
export function checkClock(utc, now = Date.now) {
  const skew = (utc - unixTime(now)) | 0;
  if (skew < -MAX_CLOCK_SKEW || skew > MAX_CLOCK_SKEW)
    throw protocolError(`SSR handshake clock is ${skew} s off (more than a day)`);
}

// The client's first packet carries the address header and up to 31 more
// bytes (get_head_size + randint(0, 31) in the Python client); ss-base
// hands this preset the header first, whole.
export function firstPartLength(data) {
  const head = addressHeaderLength((i) => data[i], data.length) || data.length;
  return Math.min(data.length, head + randomInt(32));
}

// Marks, for ss-stream-cipher below, that this protocol authenticates the
// client's IV (its first HMAC is keyed with it) and records the connection
// in the salt filter itself once that holds: a keyless probe that repeats
// a captured IV then reaches no filter, and cannot keep the genuine
// connection out.
export function authenticatesStreamIv(connection) {
  connection.layers.streamIvRecordedInside = true;
}

// Records an authenticated handshake in the relay's server-wide filter,
// by its encrypted block (clock, client id, connection id: unique per
// connection). It is what refuses a replay once the client id's window has
// forgotten it (the id idle for minutes, or evicted): the filter remembers
// the last 500,000 to 1,000,000 connections whatever their age, as it does
// SIP004's salts.
export function recordHandshake(connection, block) {
  if (!connection.salts.add(block)) throw protocolError('SSR handshake seen before: a replayed connection');
}
