import { createCipheriv, createDecipheriv, createHash, createSecretKey } from 'node:crypto';
import { randomView } from '../../crypto/random-pool.js';
import { createByteQueue } from '../../wire/byte-queue.js';
import { protocolError } from '../../wire/protocol-error.js';
import { OPTION, SECURITY } from './request.js';

// The body after either header (V2Ray common/crypto/auth.go, chunk.go and
// proxy/vmess/encoding/auth.go). With the chunk-stream option each chunk is
//   size (2, big-endian) | payload
// where for aes-128-gcm and chacha20-poly1305 the payload is sealed (tag
// last) under the body key with nonce = count (2, big-endian) | IV[2..12],
// and for none it is the plain bytes. Chunk masking XORs each size with the
// next 2 bytes of SHAKE128(IV); global padding (AEAD securities only) first
// takes 2 more bytes, mod 64, as the count of random bytes after the
// sealed payload, counted in the size. A chunk holding nothing (sealed or
// plain) ends the stream. Without chunk-stream, none is the raw bytes.
const MAX_PAYLOAD = 0x3fff;
const TAG = 16;
const PADDING_MODULUS = 64;

// ChaCha20-Poly1305 takes 32 bytes: MD5(key) | MD5(MD5(key)).
function chachaKey(key) {
  const first = createHash('md5').update(key).digest();
  return Buffer.concat([first, createHash('md5').update(first).digest()]);
}

const AEADS = {
  [SECURITY['aes-128-gcm']]: { algorithm: 'aes-128-gcm', key: (key) => createSecretKey(key) },
  [SECURITY['chacha20-poly1305']]: { algorithm: 'chacha20-poly1305', key: (key) => createSecretKey(chachaKey(key)) },
};

// SHAKE128(IV) read 2 bytes at a time. node:crypto has no squeeze-more, so
// the stream is recomputed from a copy of the absorbed state at twice the
// length whenever it runs out: the work stays proportional to what is read.
export function shakeMask(iv) {
  const absorbed = createHash('shake128').update(iv);
  let stream = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset + 2 > stream.length) stream = absorbed.copy({ outputLength: Math.max(256, stream.length * 2) }).digest();
    const value = stream.readUInt16BE(offset);
    offset += 2;
    return value;
  };
}

// What both directions of one body agree on, from the request's option,
// security, key and IV: null for the raw stream.
function framing({ option, security, key, iv }) {
  if (!(option & OPTION.chunkStream)) return null;
  const mask = option & OPTION.chunkMasking ? shakeMask(iv) : () => 0;
  const aead = AEADS[security];
  const padding = aead && option & OPTION.globalPadding ? () => mask() % PADDING_MODULUS : () => 0;
  return { mask, padding, aead, aeadKey: aead?.key(key), overhead: aead ? TAG : 0, nextNonce: nonceCounter(iv) };
}

// The raw stream, either way: no chunks, so no end chunk to send or miss.
const rawStream = (ends) => Object.assign((data, push) => data.length > 0 && push(data), ends);

function nonceCounter(iv) {
  const nonce = Buffer.from(iv.subarray(0, 12));
  let count = 0;
  return () => {
    nonce.writeUInt16BE(count, 0);
    count = (count + 1) & 0xffff;
    return nonce;
  };
}

export function createBodyEncoder(body) {
  const frame = framing(body);
  if (!frame) return rawStream({ end() {} });
  const { mask, padding, aead, aeadKey, overhead, nextNonce } = frame;
  const encode = (data, push) => {
    for (let offset = 0; offset < data.length; offset += MAX_PAYLOAD) {
      const payload = data.subarray(offset, Math.min(offset + MAX_PAYLOAD, data.length));
      const paddingLength = padding();
      const size = Buffer.allocUnsafe(2);
      size.writeUInt16BE((payload.length + overhead + paddingLength) ^ mask());
      push(size);
      if (!aead) {
        push(payload);
        continue;
      }
      const cipher = createCipheriv(aead.algorithm, aeadKey, nextNonce(), { authTagLength: TAG });
      push(cipher.update(payload));
      cipher.final();
      push(cipher.getAuthTag());
      if (paddingLength > 0) push(randomView(paddingLength));
    }
  };
  // At a clean end, the size of an empty chunk: V2Ray ends the stream on
  // that size alone and never reads the tag and padding its own writer
  // puts after it, so a V2Ray server that got them closes with a reset
  // (unread bytes), and its client would see a cut. Its readers, and ours,
  // need only the size.
  encode.end = (push) => {
    const size = Buffer.allocUnsafe(2);
    size.writeUInt16BE((overhead + padding()) ^ mask());
    push(size);
  };
  return encode;
}

export function createBodyDecoder(body) {
  const frame = framing(body);
  if (!frame) return rawStream({ ended() {} });
  const { mask, padding, aead, aeadKey, overhead, nextNonce } = frame;
  const queue = createByteQueue();
  let size = -1;
  let paddingLength = 0;
  // After the end chunk's size come its own tag and padding, then nothing.
  let ended = false;
  let trailing = 0;
  const open = (record) => {
    const sealedLength = record.length - paddingLength;
    const decipher = createDecipheriv(aead.algorithm, aeadKey, nextNonce(), { authTagLength: TAG });
    decipher.setAuthTag(record.subarray(sealedLength - TAG, sealedLength));
    const plain = decipher.update(record.subarray(0, sealedLength - TAG));
    try {
      decipher.final();
    } catch {
      throw protocolError('VMess chunk authentication failed: wrong id or corrupted stream');
    }
    return plain;
  };
  const skipTrailing = (length) => {
    trailing -= length;
    if (trailing < 0) throw protocolError('data after the end-of-stream chunk');
  };
  const decode = (data, push) => {
    if (ended) return skipTrailing(data.length);
    queue.push(data);
    for (;;) {
      if (size < 0) {
        const sizeBytes = queue.take(2);
        if (!sizeBytes) return;
        paddingLength = padding();
        size = sizeBytes.readUInt16BE(0) ^ mask();
        if (size < overhead + paddingLength) throw protocolError(`VMess chunk size ${size} is below its overhead`);
        if (size === overhead + paddingLength) {
          ended = true;
          trailing = size;
          return skipTrailing(queue.takeAll().length);
        }
      }
      const record = queue.take(size);
      if (!record) return;
      size = -1;
      const plain = aead ? open(record) : record;
      if (plain.length > 0) push(plain);
    }
  };
  // A FIN inside a chunk is a cut stream. So is one before the end chunk
  // (a peer killed, a link broken), unless this side already ended its own
  // direction: V2Ray closes a half-closed connection without its end chunk
  // once its uplinkOnly / downlinkOnly timeout (2 s / 5 s) runs out.
  decode.ended = ({ ownEnded }) => {
    if (ended) return;
    if (queue.length > 0 || size >= 0) throw protocolError('VMess stream ended inside a chunk: truncated');
    if (!ownEnded) throw protocolError('VMess stream ended without its end chunk: truncated');
  };
  return decode;
}
