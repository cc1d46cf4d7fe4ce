import { evpBytesToKey } from '../crypto/evp-bytes-to-key.js';
import { randomView } from '../crypto/random-pool.js';
import { STREAM_METHODS } from '../crypto/stream-methods.js';
import { createByteQueue } from '../wire/byte-queue.js';
import { protocolError } from '../wire/protocol-error.js';
import { streamPacket } from './udp/stream-packet.js';

const NO_IV = Buffer.alloc(0);

// Shadowsocks stream ciphers: [IV][ciphertext...] in each direction, one
// cipher object per direction for the life of the connection. Nothing
// authenticates the ciphertext: flipping a bit of it flips the same bit of
// the plaintext, so whoever sees a connection can rewrite its target port
// and send it again. The salt filter refuses the same IV twice, which stops
// that resend, but not a rewrite of a connection the server never saw.
export default {
  name: 'ss-stream-cipher',
  summary:
    'Shadowsocks stream cipher: random IV first, then one cipher stream per direction. UNAUTHENTICATED: bit flips pass undetected and can redirect a connection',
  roles: ['cipher'],
  authenticated: false,
  params: {
    method: { required: true, values: Object.keys(STREAM_METHODS) },
  },
  needsLegacyProvider: (params) => Boolean(STREAM_METHODS[params.method]?.legacy),
  udp(params, { password }) {
    const method = STREAM_METHODS[params.method];
    return { packet: streamPacket(method, method.importKey(evpBytesToKey(password, method.keyLength))) };
  },
  prepare(params, { password }) {
    const method = STREAM_METHODS[params.method];
    const keyBytes = evpBytesToKey(password, method.keyLength);
    const key = method.importKey(keyBytes);

    // The IV is drawn when the connection starts, not at its first byte, so
    // a protocol preset before this one can authenticate with it (SSR).
    const encoder = (iv, salts) => {
      let cipher = null;
      return (data, push) => {
        if (!cipher) {
          // Remembered so that this stream, fed back to us, is refused.
          if (iv.length > 0) salts.add(iv);
          cipher = method.create(false, key, iv);
          // The IV leaves in one write with the first bytes after it:
          // blinksocks 3.3.0 takes the IV from the first read alone and fails
          // a connection whose first read holds nothing more.
          const first = data.length > 0 ? cipher.update(data) : data;
          if (iv.length + first.length > 0) push(iv.length > 0 ? Buffer.concat([iv, first]) : first);
          return;
        }
        if (data.length > 0) push(cipher.update(data));
      };
    };

    // acceptOwnIv: blinksocks 3.3.0's server answers with the IV its client
    // sent (it keeps one IV per connection), reusing the keystream both ways.
    // Our client takes that answer, so it can talk to such a server; our
    // server never sends it, and refuses any IV it has seen.
    // A client IV that a protocol preset before this one authenticates
    // (SSR, authenticatesStreamIv) is recorded there, once it holds.
    const decoder = (published, salts, layers, { acceptOwnIv = false } = {}) => {
      // `none` has no IV to wait for (and nothing a filter could remember).
      let decipher = method.ivLength === 0 ? method.create(true, key, NO_IV) : null;
      let ivQueue = decipher ? null : createByteQueue();
      if (decipher) published.receivedIv = NO_IV;
      return (data, push) => {
        if (!decipher) {
          ivQueue.push(data);
          const iv = ivQueue.take(method.ivLength);
          if (!iv) return;
          const ownIv = acceptOwnIv && iv.equals(published.sentIv);
          if (!ownIv && !layers?.streamIvRecordedInside && !salts.add(iv))
            throw protocolError('repeated IV: a replayed or reflected connection');
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
    return ({ layers, salts }) => {
      const published = { key: keyBytes, sentIv: randomView(method.ivLength), receivedIv: null };
      if (layers) layers.streamCipher = published;
      const encode = encoder(published.sentIv, salts);
      return {
        clientEncode: encode,
        serverEncode: encode,
        clientDecode: decoder(published, salts, null, { acceptOwnIv: true }),
        serverDecode: decoder(published, salts, layers),
      };
    };
  },
};
