import { AEAD_METHODS } from '../crypto/aead-methods.js';
import { evpBytesToKey } from '../crypto/evp-bytes-to-key.js';
import { createHkdfSha1 } from '../crypto/hkdf-sha1.js';
import { SS_SUBKEY_INFO } from '../crypto/hkdf-subkey.js';
import { randomView } from '../crypto/random-pool.js';
import { createChunkOpener, createChunkSealer } from '../wire/aead-chunks.js';
import { createByteQueue } from '../wire/byte-queue.js';
import { protocolError } from '../wire/protocol-error.js';
import { symmetricCipherStages } from './cipher-stages.js';
import { aeadPacket } from './udp/aead-packet.js';

// SIP004: [salt] then chunks of [sealed 2-byte length][sealed payload]
// (aead-chunks.js), chunk i's length under nonce 2i and its payload 2i + 1.
const MAX_PAYLOAD = 0x3fff;

const checkInfo = (value) =>
  typeof value === 'string' && value.length > 0 && value.length <= 255
    ? undefined
    : 'must be a string of 1 to 255 characters';

export default {
  name: 'ss-aead-cipher',
  summary:
    'Shadowsocks AEAD cipher (SIP004): per-connection salt, HKDF-SHA1 subkey, authenticated chunks of up to 0x3FFF bytes',
  roles: ['cipher'],
  authenticated: true,
  params: {
    method: { required: true, values: Object.keys(AEAD_METHODS) },
    // blinksocks took an HKDF info string until 2.6.1 and has used only
    // "ss-subkey" since; another value talks to no other Shadowsocks.
    info: { required: false, description: `the HKDF info string (default "${SS_SUBKEY_INFO}")`, check: checkInfo },
  },
  udp(params, { password }) {
    const method = AEAD_METHODS[params.method];
    return { packet: aeadPacket(method, evpBytesToKey(password, method.keyLength), params.info ?? SS_SUBKEY_INFO) };
  },
  prepare(params, { password }) {
    const method = AEAD_METHODS[params.method];
    const info = params.info ?? SS_SUBKEY_INFO;
    // The subkey of each connection's salt, by HKDF-SHA1 in JavaScript (as
    // SIP004 UDP derives one per datagram): cheaper than node:crypto's
    // hkdfSync per call, and a new connection pays it twice.
    const deriveSubkey = createHkdfSha1(evpBytesToKey(password, method.keyLength), info, method.keyLength);
    const keysFor = (salt) => {
      const subkey = deriveSubkey(salt);
      return { subkey, key: method.importKey(subkey) };
    };
    const chunkSize = () => MAX_PAYLOAD;

    const encoder = (salts) => {
      let seal = null;
      return (data, push) => {
        if (!seal) {
          // A view of the random pool: a randomBytes() call of its own per
          // connection costs more (docs/notes/performance.md, "What a new connection costs").
          const salt = randomView(method.saltLength);
          // Remembered so that this stream, fed back to us, is refused.
          salts.add(salt);
          const { subkey, key } = keysFor(salt);
          seal = createChunkSealer(method, subkey, key, { firstNonce: 0, chunkSize });
          push(salt);
        }
        seal(data, push);
      };
    };

    const decoder = (salts) => {
      const queue = createByteQueue();
      let salt = null;
      let open = null;
      const checkLength = (length) => {
        if (length > MAX_PAYLOAD) throw protocolError(`chunk length ${length} exceeds 0x3FFF`);
        // As shadowsocks-libev: an empty chunk carries nothing and only
        // costs the server two AEAD opens.
        if (length === 0) throw protocolError('chunk length 0');
        // The salt is remembered once the first length authenticates, as
        // shadowsocks-libev does: probes with random salts never reach
        // the filter, and a replay's first length always authenticates.
        if (salt) {
          if (!salts.add(salt)) throw protocolError('repeated salt: a replayed or reflected connection');
          salt = null;
        }
      };
      const decode = (data, push) => {
        queue.push(data);
        if (!open) {
          salt = queue.take(method.saltLength);
          if (!salt) return;
          const { subkey, key } = keysFor(salt);
          open = createChunkOpener(method, subkey, key, { firstNonce: 0, checkLength });
        }
        open(queue, push);
      };
      // A FIN inside a chunk (or a salt) is a cut stream, not its end.
      decode.ended = () => {
        if (queue.length > 0 || open?.awaitingPayload()) throw protocolError('stream ended inside a chunk: truncated');
      };
      return decode;
    };

    return ({ salts }) => symmetricCipherStages(encoder(salts), decoder(salts));
  },
};
