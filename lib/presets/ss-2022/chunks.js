import { TAG_LENGTH } from '../../crypto/aead-methods.js';
import { addLittleEndian } from '../../crypto/nonce.js';
import { protocolError } from '../protocol-error.js';

// SIP022's records: each is sealed under the stream's subkey with the next
// value of a 12-byte little-endian counter. Both streams spend nonces 0 and 1
// on their header records (fixed-length header, then the variable-length
// header or the first payload), so the body's length records take 2, 4, ...
// and its payloads 3, 5, ... Lengths go through the method's short-record
// sequence (crypto/short-records.js), payloads through node:crypto, as in
// ss-aead-cipher; a payload may hold up to 0xFFFF bytes here (SIP004: 0x3FFF).
export const MAX_PAYLOAD = 0xffff;
export { TAG_LENGTH };
const LENGTH_RECORD = 2 + TAG_LENGTH;
const BODY_LENGTHS = { offset: 2, step: 2 };
const FIRST_BODY_PAYLOAD = 3;

const counterNonce = (value) => addLittleEndian(Buffer.alloc(12), value);

// One whole record (a header chunk): ciphertext || tag.
export function sealRecord(aead, key, counter, plaintext) {
  const cipher = aead.seal(key, counterNonce(counter));
  const ciphertext = cipher.update(plaintext);
  cipher.final();
  return Buffer.concat([ciphertext, cipher.getAuthTag()]);
}

export function openRecord(aead, key, counter, record, what) {
  const ciphertextLength = record.length - TAG_LENGTH;
  const decipher = aead.open(key, counterNonce(counter));
  decipher.setAuthTag(record.subarray(ciphertextLength));
  const plaintext = decipher.update(record.subarray(0, ciphertextLength));
  try {
    decipher.final();
  } catch {
    throw protocolError(`AEAD tag mismatch in the ${what}: wrong key or corrupted stream`);
  }
  return plaintext;
}

// (data, push): data as length and payload records after the headers. A read
// longer than one payload is cut into equal chunks, so 64 KiB costs two
// records, not a full one and a 1-byte one.
export function createBodySealer(aead, subkey, key) {
  const lengths = aead.shortRecords(subkey, key, BODY_LENGTHS);
  const nonce = counterNonce(FIRST_BODY_PAYLOAD);
  const length = Buffer.alloc(2);
  return (data, push) => {
    if (data.length === 0) return;
    const count = Math.ceil(data.length / MAX_PAYLOAD);
    const size = Math.ceil(data.length / count);
    for (let offset = 0; offset < data.length; offset += size) {
      const payload = data.subarray(offset, Math.min(offset + size, data.length));
      const lengthRecord = Buffer.allocUnsafe(LENGTH_RECORD);
      length.writeUInt16BE(payload.length, 0);
      lengths.seal(length, lengthRecord, 0);
      push(lengthRecord);
      const cipher = aead.seal(key, nonce);
      addLittleEndian(nonce, 2);
      push(cipher.update(payload));
      cipher.final();
      push(cipher.getAuthTag());
    }
  };
}

// (queue, push): opens every whole record the byte queue holds, pushing the
// payloads; what is left waits for the next read. Every length up to
// 0xFFFF is valid, so at most 0xFFFF + 16 bytes are ever awaited.
// open.awaitingPayload() says whether a length was read without its payload.
export function createBodyOpener(aead, subkey, key) {
  const lengths = aead.shortRecords(subkey, key, BODY_LENGTHS);
  const nonce = counterNonce(FIRST_BODY_PAYLOAD);
  const length = Buffer.alloc(2);
  let payloadLength = -1;
  const open = (queue, push) => {
    for (;;) {
      if (payloadLength < 0) {
        const record = queue.take(LENGTH_RECORD);
        if (!record) return;
        if (!lengths.open(record, length)) throw protocolError('AEAD tag mismatch in a length chunk: wrong key or corrupted stream');
        payloadLength = length.readUInt16BE(0);
      }
      const record = queue.take(payloadLength + TAG_LENGTH);
      if (!record) return;
      payloadLength = -1;
      const ciphertextLength = record.length - TAG_LENGTH;
      const decipher = aead.open(key, nonce);
      addLittleEndian(nonce, 2);
      decipher.setAuthTag(record.subarray(ciphertextLength));
      const plaintext = decipher.update(record.subarray(0, ciphertextLength));
      try {
        decipher.final();
      } catch {
        throw protocolError('AEAD tag mismatch in a payload chunk: wrong key or corrupted stream');
      }
      if (plaintext.length > 0) push(plaintext);
    }
  };
  open.awaitingPayload = () => payloadLength >= 0;
  return open;
}
