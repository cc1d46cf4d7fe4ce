import { randomBytes } from 'node:crypto';
import { evpBytesToKey } from '../crypto/evp-bytes-to-key.js';
import { NO_CIPHER, STREAM_METHODS } from '../crypto/stream-methods.js';
import { createByteQueue } from './byte-queue.js';

const METHODS = { ...STREAM_METHODS, none: NO_CIPHER };

// Shadowsocks stream ciphers: [IV][ciphertext...] in each direction, one
// cipher object per direction for the life of the connection.
export default {
  name: 'ss-stream-cipher',
  summary: 'Shadowsocks stream cipher: random IV first, then one cipher stream per direction (no integrity)',
  roles: ['cipher'],
  params: {
    method: { required: true, values: Object.keys(METHODS) },
  },
  needsLegacyProvider: (params) => Boolean(METHODS[params.method]?.legacy),
  prepare(params, { password }) {
    const method = METHODS[params.method];
    const keyBytes = evpBytesToKey(password, method.keyLength);
    const key = method.importKey(keyBytes);

    // The IV is drawn when the connection starts, not at its first byte, so
    // a protocol preset before this one can authenticate with it (SSR).
    const encoder = (iv) => {
      let cipher = null;
      return (data, push) => {
        if (!cipher) {
          cipher = method.create(false, key, iv);
          if (iv.length > 0) push(iv);
        }
        if (data.length > 0) push(cipher.update(data));
      };
    };

    const decoder = (published) => {
      let decipher = null;
      let ivQueue = createByteQueue();
      return (data, push) => {
        if (!decipher) {
          ivQueue.push(data);
          const iv = method.ivLength === 0 ? Buffer.alloc(0) : ivQueue.take(method.ivLength);
          if (!iv) return;
          decipher = method.create(true, key, iv);
          published.receivedIv = iv;
          data = ivQueue.takeAll();
          ivQueue = null;
        }
        if (data.length > 0) push(decipher.update(data));
      };
    };

    // What the stages before this one may read: the key bytes, the IV this
    // side sends with and, once it arrived, the peer's.
    return ({ layers } = {}) => {
      const published = { key: keyBytes, sentIv: randomBytes(method.ivLength), receivedIv: null };
      if (layers) layers.streamCipher = published;
      const encode = encoder(published.sentIv);
      const decode = decoder(published);
      return { clientEncode: encode, serverEncode: encode, clientDecode: decode, serverDecode: decode };
    };
  },
};
