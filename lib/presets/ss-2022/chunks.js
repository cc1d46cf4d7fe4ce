import { TAG_LENGTH } from '../../crypto/aead-methods.js';
import { addLittleEndian } from '../../crypto/nonce.js';
import { createChunkOpener, createChunkSealer, openSealed } from '../../wire/aead-chunks.js';
import { protocolError } from '../../wire/protocol-error.js';

// SIP022's records: each is sealed under the stream's subkey with the next
// value of a 12-byte little-endian counter. Both streams spend nonces 0 and 1
// on their header records (fixed-length header, then the variable-length
// header or the first payload), so the body is SIP004's chunk stream
// (aead-chunks.js) from nonce 2: lengths 2, 4, ..., payloads 3, 5, ...
// A payload may hold up to 0xFFFF bytes here (SIP004: 0x3FFF), so every
// length is valid.
export const MAX_PAYLOAD = 0xffff;
export { TAG_LENGTH };
const FIRST_BODY_NONCE = 2;

const counterNonce = (value) => addLittleEndian(Buffer.alloc(12), value);

// One whole record (a header chunk): ciphertext || tag.
export function sealRecord(aead, key, counter, plaintext) {
  const cipher = aead.seal(key, counterNonce(counter));
  const ciphertext = cipher.update(plaintext);
  cipher.final();
  return Buffer.concat([ciphertext, cipher.getAuthTag()]);
}

export const openRecord = (aead, key, counter, record, what) =>
  authenticated(openSealed(aead, key, counterNonce(counter), record), what);

// An opened record's plaintext; null (its tag did not match) refuses it.
function authenticated(plaintext, what) {
  if (!plaintext) throw protocolError(`AEAD tag mismatch in the ${what}: wrong key or corrupted stream`);
  return plaintext;
}

// One stream's records under its subkey: the two header records by their
// counters (seal, open), then the body (sealer, opener). Where the method
// seals small payloads itself (AES-GCM), one AES-ECB object serves the
// headers and the body's lengths and small payloads, not a node:crypto
// cipher object per header record: a short connection's four header
// records, sealed and opened, were eight cipher objects.
export function createStreamRecords(aead, subkey, key) {
  const lengths = aead.shortRecords(subkey, key, { offset: FIRST_BODY_NONCE, step: 2 });
  const small = lengths.smallPayloads;
  const fits = (n) => small && n <= small.maxLength;
  return {
    seal(counter, plaintext) {
      if (!fits(plaintext.length)) return sealRecord(aead, key, counter, plaintext);
      const record = Buffer.allocUnsafe(plaintext.length + TAG_LENGTH);
      small.sealInto(counterNonce(counter), plaintext, record, 0);
      return record;
    },
    open(counter, record, what) {
      if (!fits(record.length - TAG_LENGTH)) return openRecord(aead, key, counter, record, what);
      return authenticated(small.open(counterNonce(counter), record), what);
    },
    sealer: () => createBodySealer(aead, subkey, key, lengths),
    opener: () => createBodyOpener(aead, subkey, key, lengths),
  };
}

// A read longer than one payload is cut into equal chunks, so 64 KiB costs
// two records, not a full one and a 1-byte one.
const equalChunks = (length) => Math.ceil(length / Math.ceil(length / MAX_PAYLOAD));

// (data, push): data as length and payload records after the headers.
// lengths: the short records of the body's lengths, when the caller has them.
export const createBodySealer = (aead, subkey, key, lengths) =>
  createChunkSealer(aead, subkey, key, { firstNonce: FIRST_BODY_NONCE, chunkSize: equalChunks, lengths });

// SIP022 does not forbid an empty chunk, and shadowsocks-rust accepts
// them, but none of its clients sends one after another: a run of them
// carries nothing and costs the server two AEAD opens each (300,000 in a
// row, 2.3 s of CPU), so a longer run is refused.
const MAX_EMPTY_RUN = 16;

// (queue, push), and open.awaitingPayload(): see createChunkOpener.
export function createBodyOpener(aead, subkey, key, lengths) {
  let emptyRun = 0;
  const checkLength = (length) => {
    emptyRun = length === 0 ? emptyRun + 1 : 0;
    if (emptyRun > MAX_EMPTY_RUN) throw protocolError(`more than ${MAX_EMPTY_RUN} empty chunks in a row`);
  };
  return createChunkOpener(aead, subkey, key, { firstNonce: FIRST_BODY_NONCE, checkLength, lengths });
}
