import { createSecretKey } from 'node:crypto';
import { AEAD_METHODS, TAG_LENGTH } from '../crypto/aead-methods.js';
import { deriveSubkey } from '../crypto/hkdf-subkey.js';
import { addLittleEndian } from '../crypto/nonce.js';
import { randomIntFromByte, randomView } from '../crypto/random-pool.js';
import { LENGTH_RECORD, openSealed, pushSealed } from '../wire/aead-chunks.js';
import { createByteQueue } from '../wire/byte-queue.js';
import { protocolError } from '../wire/protocol-error.js';
import { symmetricCipherStages } from './cipher-stages.js';

// blinksocks' aead-random-cipher: SIP004's chunks with random padding before
// each one, so chunk boundaries do not sit at fixed offsets:
//   [salt] then per chunk [padding][sealed 2-byte length][sealed payload]
// - subkey = HKDF-SHA1(password bytes (no EVP_BytesToKey), salt, info);
//   salt and key are the method's key length.
// - nonces: a 12-byte little-endian counter from 0, one per seal, so chunk
//   i's length takes 2i and its payload 2i + 1.
// - padding length = factor * the first tag byte of AES-GCM(subkey, nonce 2i)
//   sealing the 12 nonce bytes themselves: both ends compute it, and it is at
//   most 255 * factor. That seal reuses the length record's nonce (a
//   blinksocks design flaw, written down in docs/blinksocks.md); followed
//   here for wire compatibility.
// - payloads of a random 0x800 to 0x3FFF bytes, as blinksocks splits them.
const METHODS = ['aes-128-gcm', 'aes-192-gcm', 'aes-256-gcm'];
const DEFAULT_INFO = 'bs-subkey';
const DEFAULT_FACTOR = 2;
const MIN_SPLIT = 0x0800;
const MAX_PAYLOAD = 0x3fff;
const NONCE_LENGTH = 12;
const SEQUENCE = { offset: 0, step: 2 };

const checkInfo = (value) =>
  typeof value === 'string' && value.length > 0 && value.length <= 255
    ? undefined
    : 'must be a string of 1 to 255 characters';
const checkFactor = (value) =>
  Number.isInteger(value) && value >= 1 && value <= 10 ? undefined : 'must be a whole number from 1 to 10';

export default {
  name: 'aead-random-cipher',
  summary:
    'blinksocks AEAD cipher with random padding before each chunk (AES-GCM, HKDF-SHA1 subkey of the raw password)',
  roles: ['cipher'],
  authenticated: true,
  params: {
    method: { required: true, values: METHODS },
    info: { required: false, description: `the HKDF info string (default "${DEFAULT_INFO}")`, check: checkInfo },
    factor: {
      required: false,
      description: `padding length multiplier, 1 to 10 (default ${DEFAULT_FACTOR})`,
      check: checkFactor,
    },
  },
  prepare(params, { password }) {
    const method = AEAD_METHODS[params.method];
    const info = params.info ?? DEFAULT_INFO;
    const factor = params.factor ?? DEFAULT_FACTOR;
    const masterKey = createSecretKey(Buffer.from(password, 'utf8'));

    // Per direction: the subkey, its payload nonce, and two short-record
    // sequences on the even nonces: one for the lengths, one that seals the
    // nonce to get the padding length.
    const keys = (salt) => {
      const subkey = deriveSubkey(masterKey, salt, method.keyLength, info);
      const key = method.importKey(subkey);
      return {
        key,
        lengths: method.shortRecords(subkey, key, SEQUENCE),
        paddings: method.shortRecords(subkey, key, SEQUENCE),
        evenNonce: Buffer.alloc(NONCE_LENGTH),
        payloadNonce: addLittleEndian(Buffer.alloc(NONCE_LENGTH), 1),
        sealedNonce: Buffer.alloc(NONCE_LENGTH + TAG_LENGTH),
      };
    };
    const nextPaddingLength = (state) => {
      state.paddings.seal(state.evenNonce, state.sealedNonce, 0);
      addLittleEndian(state.evenNonce, 2);
      return state.sealedNonce[NONCE_LENGTH] * factor;
    };

    const encoder = (salts) => {
      let state = null;
      const length = Buffer.alloc(2);
      return (data, push) => {
        if (!state) {
          const salt = randomView(method.saltLength);
          salts.add(salt);
          state = keys(salt);
          push(salt);
        }
        for (let offset = 0; offset < data.length;) {
          const size = Math.min(randomIntFromByte(MIN_SPLIT, MAX_PAYLOAD), data.length - offset);
          const payload = data.subarray(offset, offset + size);
          offset += size;
          const paddingLength = nextPaddingLength(state);
          if (paddingLength > 0) push(randomView(paddingLength));
          const lengthRecord = Buffer.allocUnsafe(LENGTH_RECORD);
          length.writeUInt16BE(size, 0);
          state.lengths.seal(length, lengthRecord, 0);
          push(lengthRecord);
          pushSealed(method, state.key, state.payloadNonce, payload, push);
          addLittleEndian(state.payloadNonce, 2);
        }
      };
    };

    const decoder = (salts) => {
      const queue = createByteQueue();
      const length = Buffer.alloc(2);
      let state = null;
      // Each chunk is read in three steps: its padding, its length, its payload.
      let step = 'padding';
      let paddingLength = -1;
      let payloadLength = 0;
      let salt = null;
      // Whether a byte of the current chunk (padding included) was read.
      let inChunk = false;
      // Holds at most one chunk: 2550 bytes of padding, then 0x3FFF + 34.
      const decode = (data, push) => {
        queue.push(data);
        if (!state) {
          salt = queue.take(method.saltLength);
          if (!salt) return;
          state = keys(salt);
        }
        for (;;) {
          if (step === 'padding') {
            if (paddingLength < 0) paddingLength = nextPaddingLength(state);
            if (queue.length < paddingLength) return;
            if (paddingLength > 0) {
              queue.take(paddingLength);
              inChunk = true;
            }
            paddingLength = -1;
            step = 'length';
          }
          if (step === 'length') {
            const record = queue.take(LENGTH_RECORD);
            if (!record) return;
            inChunk = true;
            if (!state.lengths.open(record, length))
              throw protocolError('aead-random-cipher: tag mismatch: wrong key or corrupted stream');
            payloadLength = length.readUInt16BE(0);
            if (payloadLength > MAX_PAYLOAD)
              throw protocolError(`aead-random-cipher: chunk length ${payloadLength} exceeds 0x3FFF`);
            // As ss-aead-cipher (and libev): blinksocks never seals an
            // empty chunk, and a flood of them only costs the server AEAD
            // opens.
            if (payloadLength === 0) throw protocolError('aead-random-cipher: chunk length 0');
            // Remembered once the first length authenticates, as
            // ss-aead-cipher does: a keyless probe that repeats a captured
            // salt never reaches the filter, so it cannot keep the
            // genuine connection out, nor flush the filter.
            if (salt) {
              if (!salts.add(salt)) throw protocolError('repeated salt: a replayed or reflected connection');
              salt = null;
            }
            step = 'payload';
          }
          const record = queue.take(payloadLength + TAG_LENGTH);
          if (!record) return;
          step = 'padding';
          inChunk = false;
          const plaintext = openSealed(method, state.key, state.payloadNonce, record);
          addLittleEndian(state.payloadNonce, 2);
          if (!plaintext) throw protocolError('aead-random-cipher: tag mismatch: wrong key or corrupted stream');
          if (plaintext.length > 0) push(plaintext);
        }
      };
      // A FIN inside a chunk (its padding, length or payload) is a cut
      // stream, not its end.
      decode.ended = () => {
        if (queue.length > 0 || inChunk)
          throw protocolError('aead-random-cipher: stream ended inside a chunk: truncated');
      };
      return decode;
    };

    return ({ salts }) => symmetricCipherStages(encoder(salts), decoder(salts));
  },
};
