import { randomBytes } from 'node:crypto';
import { AEAD_METHODS, TAG_LENGTH } from '../crypto/aead-methods.js';
import { evpBytesToKey } from '../crypto/evp-bytes-to-key.js';
import { deriveSubkey } from '../crypto/hkdf-subkey.js';
import { createByteQueue } from './byte-queue.js';
import { protocolError } from './protocol-error.js';

// SIP004: [salt] then chunks of [sealed 2-byte length][sealed payload], each
// sealed with the next value of a little-endian nonce counter.
export const MAX_PAYLOAD = 0x3fff;
const LENGTH_RECORD = 2 + TAG_LENGTH;

function incrementLittleEndian(nonce) {
  for (let i = 0; i < nonce.length; i++) {
    nonce[i] = (nonce[i] + 1) & 0xff;
    if (nonce[i] !== 0) return;
  }
}

export default {
  name: 'ss-aead-cipher',
  summary: 'Shadowsocks AEAD cipher (SIP004): per-connection salt, HKDF-SHA1 subkey, authenticated chunks of up to 0x3FFF bytes',
  params: {
    method: { required: true, values: Object.keys(AEAD_METHODS) },
  },
  prepare(params, { password }) {
    const method = AEAD_METHODS[params.method];
    const masterKey = evpBytesToKey(password, method.keyLength);

    const encoder = () => {
      let subkey = null;
      const nonce = Buffer.alloc(method.nonceLength);
      const sealed = (plaintext, out, offset) => {
        const cipher = method.seal(subkey, nonce);
        incrementLittleEndian(nonce);
        const ciphertext = cipher.update(plaintext);
        cipher.final();
        if (out) {
          ciphertext.copy(out, offset);
          cipher.getAuthTag().copy(out, offset + ciphertext.length);
          return out;
        }
        return [ciphertext, cipher.getAuthTag()];
      };
      return (data, push) => {
        if (!subkey) {
          const salt = randomBytes(method.saltLength);
          subkey = deriveSubkey(masterKey, salt);
          push(salt);
        }
        for (let offset = 0; offset < data.length; offset += MAX_PAYLOAD) {
          const payload = data.subarray(offset, Math.min(offset + MAX_PAYLOAD, data.length));
          const lengthRecord = Buffer.allocUnsafe(LENGTH_RECORD);
          lengthRecord.writeUInt16BE(payload.length, 0);
          push(sealed(lengthRecord.subarray(0, 2), lengthRecord, 0));
          const [ciphertext, tag] = sealed(payload);
          push(ciphertext);
          push(tag);
        }
      };
    };

    const decoder = () => {
      const queue = createByteQueue();
      const nonce = Buffer.alloc(method.nonceLength);
      let subkey = null;
      let payloadLength = -1;
      const opened = (record) => {
        const ciphertextLength = record.length - TAG_LENGTH;
        const decipher = method.open(subkey, nonce);
        incrementLittleEndian(nonce);
        decipher.setAuthTag(record.subarray(ciphertextLength));
        const plaintext = decipher.update(record.subarray(0, ciphertextLength));
        try {
          decipher.final();
        } catch {
          throw protocolError('AEAD tag mismatch: wrong key or corrupted stream');
        }
        return plaintext;
      };
      return (data, push) => {
        queue.push(data);
        if (!subkey) {
          const salt = queue.take(method.saltLength);
          if (!salt) return;
          subkey = deriveSubkey(masterKey, salt);
        }
        for (;;) {
          if (payloadLength < 0) {
            const record = queue.take(LENGTH_RECORD);
            if (!record) return;
            payloadLength = opened(record).readUInt16BE(0);
            if (payloadLength > MAX_PAYLOAD) throw protocolError(`chunk length ${payloadLength} exceeds 0x3FFF`);
          }
          const record = queue.take(payloadLength + TAG_LENGTH);
          if (!record) return;
          payloadLength = -1;
          const plaintext = opened(record);
          if (plaintext.length > 0) push(plaintext);
        }
      };
    };

    return () => {
      const encode = encoder();
      const decode = decoder();
      return { clientEncode: encode, serverEncode: encode, clientDecode: decode, serverDecode: decode };
    };
  },
};
