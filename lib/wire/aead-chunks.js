import { TAG_LENGTH } from '../crypto/aead-methods.js';
import { addLittleEndian } from '../crypto/nonce.js';
import { protocolError } from './protocol-error.js';

// The chunk stream of SIP004, which SIP022 and blinksocks' aead-random-cipher
// keep: per chunk [sealed 2-byte big-endian length][sealed payload], each
// record under one subkey with the next value of a little-endian nonce
// counter. The first chunk's length takes nonce firstNonce (SIP004: 0;
// SIP022, after its two header records: 2), its payload firstNonce + 1, and
// so on in steps of 2. The lengths go through the method's short-record
// sequence (no cipher object per record, see crypto/short-records.js), the
// payloads through node:crypto.
export const LENGTH_RECORD = 2 + TAG_LENGTH;

const lengthSequence = (firstNonce) => ({ offset: firstNonce, step: 2 });
const payloadNonce = (method, firstNonce) => addLittleEndian(Buffer.alloc(method.nonceLength), firstNonce + 1);

// Pushes payload sealed under nonce: the ciphertext, then the tag (no copy).
export function pushSealed(method, key, nonce, payload, push) {
  const cipher = method.seal(key, nonce);
  push(cipher.update(payload));
  cipher.final();
  push(cipher.getAuthTag());
}

// record: ciphertext || tag under nonce. The plaintext, or null when the tag
// does not match.
export function openSealed(method, key, nonce, record) {
  const ciphertextLength = record.length - TAG_LENGTH;
  const decipher = method.open(key, nonce);
  decipher.setAuthTag(record.subarray(ciphertextLength));
  const plaintext = decipher.update(record.subarray(0, ciphertextLength));
  try {
    decipher.final();
  } catch {
    return null;
  }
  return plaintext;
}

// (data, push): data as chunks, each chunkSize(data.length) bytes but the last.
// A small payload (a request, a response) and its length leave as one
// buffer, sealed without a node:crypto object where the method offers
// that (smallPayloads, AES-GCM): one write instead of three, no cipher
// object per record. A large one is sealed by node:crypto.
// `lengths`, when given, is the method's short records of that sequence
// (offset firstNonce, step 2), made by a caller that shares their cipher.
export function createChunkSealer(
  method,
  subkey,
  key,
  { firstNonce, chunkSize, lengths = method.shortRecords(subkey, key, lengthSequence(firstNonce)) },
) {
  const small = lengths.smallPayloads;
  const nonce = payloadNonce(method, firstNonce);
  const length = Buffer.alloc(2);
  return (data, push) => {
    if (data.length === 0) return;
    const size = chunkSize(data.length);
    for (let offset = 0; offset < data.length; offset += size) {
      const payload = data.subarray(offset, Math.min(offset + size, data.length));
      length.writeUInt16BE(payload.length, 0);
      if (small && payload.length <= small.maxLength) {
        const chunk = Buffer.allocUnsafe(LENGTH_RECORD + payload.length + TAG_LENGTH);
        lengths.seal(length, chunk, 0);
        small.sealInto(nonce, payload, chunk, LENGTH_RECORD);
        push(chunk);
      } else {
        const lengthRecord = Buffer.allocUnsafe(LENGTH_RECORD);
        lengths.seal(length, lengthRecord, 0);
        push(lengthRecord);
        pushSealed(method, key, nonce, payload, push);
      }
      addLittleEndian(nonce, 2);
    }
  };
}

// (queue, push): opens every whole chunk the byte queue holds, pushing the
// non-empty payloads; what is left waits for the next read. checkLength(n)
// sees each length once it authenticates, before its payload is awaited, and
// throws to refuse it; no length is over 0xFFFF, so at most 0xFFFF + 16
// bytes are ever awaited. open.awaitingPayload() says whether a length was
// read without its payload.
export function createChunkOpener(
  method,
  subkey,
  key,
  { firstNonce, checkLength = () => {}, lengths = method.shortRecords(subkey, key, lengthSequence(firstNonce)) },
) {
  const small = lengths.smallPayloads;
  const nonce = payloadNonce(method, firstNonce);
  const length = Buffer.alloc(2);
  let payloadLength = -1;
  const open = (queue, push) => {
    for (;;) {
      if (payloadLength < 0) {
        const record = queue.take(LENGTH_RECORD);
        if (!record) return;
        if (!lengths.open(record, length))
          throw protocolError('AEAD tag mismatch in a length chunk: wrong key or corrupted stream');
        payloadLength = length.readUInt16BE(0);
        checkLength(payloadLength);
      }
      const record = queue.take(payloadLength + TAG_LENGTH);
      if (!record) return;
      const plaintext =
        small && payloadLength <= small.maxLength ? small.open(nonce, record) : openSealed(method, key, nonce, record);
      payloadLength = -1;
      addLittleEndian(nonce, 2);
      if (!plaintext) throw protocolError('AEAD tag mismatch in a payload chunk: wrong key or corrupted stream');
      if (plaintext.length > 0) push(plaintext);
    }
  };
  open.awaitingPayload = () => payloadLength >= 0;
  return open;
}
