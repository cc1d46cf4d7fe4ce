import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  timingSafeEqual,
} from 'node:crypto';
import { evpBytesToKey } from '../crypto/evp-bytes-to-key.js';
import { protocolError } from '../wire/protocol-error.js';
import { targetHeaderStages } from '../wire/target-header.js';

// blinksocks' authenticated address header (base-auth, blinksocks 3.x):
//   AES-128-CFB( [host length][host as text][port, big-endian] ) || HMAC
// keyed by EVP_BytesToKey(password, 16) for both the cipher and the HMAC,
// with the fixed IV MD5(password || "base-auth"), the HMAC over the
// encrypted header. The same key and IV open every connection, so equal
// headers look equal on the wire and a recorded one can be replayed: the
// cipher preset after it is what protects the stream.
const HMAC_LENGTHS = { md5: 16, sha1: 20, sha256: 32 };
const DEFAULT_METHOD = 'sha1';

export default {
  name: 'base-auth',
  summary: 'blinksocks target address, AES-128-CFB encrypted and HMAC-authenticated with keys from the password',
  roles: ['address'],
  params: {
    method: {
      required: false,
      values: Object.keys(HMAC_LENGTHS),
      description: `the HMAC hash (default ${DEFAULT_METHOD})`,
    },
  },
  prepare(params, { password }) {
    const hash = params.method ?? DEFAULT_METHOD;
    const macLength = HMAC_LENGTHS[hash];
    const keyBytes = evpBytesToKey(password, 16);
    const key = createSecretKey(keyBytes);
    const iv = createHash('md5').update(`${password}base-auth`, 'utf8').digest();
    // CFB's first byte is the plaintext's XOR the first byte of E(K, IV),
    // the same for every connection: the host length can be read before
    // the rest of the header has arrived.
    const lengthMask = createCipheriv('aes-128-ecb', key, null).setAutoPadding(false).update(iv)[0];
    const mac = (data) => createHmac(hash, keyBytes).update(data).digest();

    const encodeHeader = ({ host, port }) => {
      const name = Buffer.from(host, 'utf8');
      if (name.length === 0 || name.length > 255) throw new Error(`host name must be 1 to 255 bytes: ${host}`);
      const header = Buffer.alloc(1 + name.length + 2);
      header[0] = name.length;
      name.copy(header, 1);
      header.writeUInt16BE(port, 1 + name.length);
      const encrypted = createCipheriv('aes-128-cfb', key, iv).update(header);
      return Buffer.concat([encrypted, mac(encrypted)]);
    };

    const headerLength = (queue) => {
      if (queue.length < 1) return 0;
      const hostLength = queue.peek(0) ^ lengthMask;
      if (hostLength === 0) throw protocolError('base-auth: empty host in address header');
      const length = 1 + hostLength + 2 + macLength;
      // At most 1 + 255 + 2 + 32 bytes are held before the header is whole.
      return queue.length < length ? 0 : length;
    };
    const decodeHeader = (header) => {
      const encrypted = header.subarray(0, header.length - macLength);
      if (!timingSafeEqual(mac(encrypted), header.subarray(encrypted.length))) {
        throw protocolError('base-auth: HMAC mismatch: wrong password or not a base-auth stream');
      }
      const plain = createDecipheriv('aes-128-cfb', key, iv).update(encrypted);
      const hostLength = plain[0];
      return { host: plain.subarray(1, 1 + hostLength).toString('utf8'), port: plain.readUInt16BE(1 + hostLength) };
    };

    // The header leaves with the first bytes of the stream, not alone at
    // connection start: blinksocks 3.3.0's server refuses a first read
    // holding the header and nothing after it (docs/blinksocks.md).
    return (connection) =>
      targetHeaderStages(connection, { encodeHeader, headerLength, decodeHeader, firstBytes: true });
  },
};
