import { randomBytes } from 'node:crypto';
import { evpBytesToKey } from '../crypto/evp-bytes-to-key.js';
import { STREAM_METHODS } from '../crypto/stream-methods.js';
import { createByteQueue } from './byte-queue.js';
import { protocolError } from './protocol-error.js';

// Shadowsocks stream ciphers: [IV][ciphertext...] in each direction, one
// cipher object per direction for the life of the connection. Nothing
// authenticates the ciphertext: flipping a bit of it flips the same bit of
// the plaintext, so whoever sees a connection can rewrite its target port
// and send it again. The salt filter refuses the same IV twice, which stops
// that resend, but not a rewrite of a connection the server never saw.
export default {
  name: 'ss-stream-cipher',
  summary: 'Shadowsocks stream cipher: random IV first, then one cipher stream per direction. UNAUTHENTICATED: bit flips pass undetected and can redirect a connection',
  roles: ['cipher'],
  authenticated: false,
  params: {
    method: { required: true, values: Object.keys(STREAM_METHODS) },
  },
  needsLegacyProvider: (params) => Boolean(STREAM_METHODS[params.method]?.legacy),
  prepare(params, { password }) {
    const method = STREAM_METHODS[params.method];
    const key = method.importKey(evpBytesToKey(password, method.keyLength));

    const encoder = (salts) => {
      let cipher = null;
      return (data, push) => {
        if (!cipher) {
          const iv = randomBytes(method.ivLength);
          // Remembered so that this stream, fed back to us, is refused.
          salts.add(iv);
          cipher = method.create(false, key, iv);
          push(iv);
        }
        if (data.length > 0) push(cipher.update(data));
      };
    };

    const decoder = (salts) => {
      let decipher = null;
      let ivQueue = createByteQueue();
      return (data, push) => {
        if (!decipher) {
          ivQueue.push(data);
          const iv = ivQueue.take(method.ivLength);
          if (!iv) return;
          if (!salts.add(iv)) throw protocolError('repeated IV: a replayed or reflected connection');
          decipher = method.create(true, key, iv);
          data = ivQueue.takeAll();
          ivQueue = null;
        }
        if (data.length > 0) push(decipher.update(data));
      };
    };

    return (connection) => {
      const encode = encoder(connection.salts);
      const decode = decoder(connection.salts);
      return { clientEncode: encode, serverEncode: encode, clientDecode: decode, serverDecode: decode };
    };
  },
};
