import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { createByteQueue } from '../../wire/byte-queue.js';
import { protocolError } from '../../wire/protocol-error.js';
import { createClientIds, createReplayWindows } from './connection-ids.js';
import {
  authenticatesStreamIv,
  blockKey,
  checkClock,
  decryptBlock,
  encryptBlock,
  firstPartLength,
  hmac,
  macKeys,
  placement,
  recordHandshake,
  streamCipherKeys,
  unixTime,
} from './shared.js';

// ShadowsocksR's auth_aes128_md5 and auth_aes128_sha1 (obfsplugin/auth.py).
// The client's first packet is a handshake:
//   [1 random][6 HMAC(iv+key) of it]
//   [4 uid][16 AES(utc, client id, connection id, length, padding length)][4 HMAC(iv+key)]
//   [padding][first data][4 HMAC(key) of everything before]
// then, in both directions, chunks numbered from 1:
//   [2 size][2 HMAC of size][padding length + padding][data][4 HMAC]
// every HMAC keyed by key + the chunk's number (32-bit LE), padding length
// one byte (n + 1, n < 128) or 0xff and two bytes (n + 1, LE).
const UNIT = 8100; // the Python relay's unit_len: data per chunk
const MAX_CHUNK = 8192; // the Python decoder refuses this size and above
const MIN_CHUNK = 7;
const MAX_HANDSHAKE = 4096; // 35 + padding (< 1024) + address header and 31 bytes
const FULL_READ = 32 * 1024 - 9; // Python: BUF_SIZE - overhead; no padding for a full read
const TCP_MSS = 1460;

// How much padding a chunk of `size` bytes gets, as the Python relay sizes
// it from the read it came in (`fullSize`): none for a full read, else up
// to what fills a TCP segment. It draws uniformly where Python draws from
// a trapezoid; the receiver reads the length either way.
function paddingLength(size, fullSize) {
  if (fullSize >= FULL_READ) return 0;
  const room = TCP_MSS - size - 9;
  if (room > 0) return randomInt(room);
  return randomInt(32);
}

// Either form takes padding + 1 bytes: [n + 1][n random] or [0xff][n + 1 LE][n - 2 random].
const paddingFieldLength = (padding) => padding + 1;

function writePadding(out, offset, padding) {
  if (padding < 128) {
    out[offset] = padding + 1;
    if (padding > 0) randomBytes(padding).copy(out, offset + 1);
  } else {
    out[offset] = 0xff;
    out.writeUInt16LE(padding + 1, offset + 1);
    randomBytes(padding - 2).copy(out, offset + 3);
  }
  return offset + paddingFieldLength(padding);
}

// Chunks, for one direction, numbered from 1.
function chunkWriter(algorithm, userKey) {
  const macKeyFor = macKeys(userKey);
  let id = 1;
  return (data) => {
    const count = Math.max(1, Math.ceil(data.length / UNIT));
    const sizes = [];
    let total = 0;
    for (let i = 0; i < count; i++) {
      const payload = Math.min(UNIT, data.length - i * UNIT);
      const padding = paddingLength(payload, data.length);
      sizes.push([payload, padding]);
      total += 8 + paddingFieldLength(padding) + payload;
    }
    const out = Buffer.allocUnsafe(total);
    let offset = 0;
    let read = 0;
    for (const [payload, padding] of sizes) {
      const start = offset;
      const size = 8 + paddingFieldLength(padding) + payload;
      const macKey = macKeyFor(id);
      out.writeUInt16LE(size, start);
      createHmac(algorithm, macKey)
        .update(out.subarray(start, start + 2))
        .digest()
        .copy(out, start + 2, 0, 2);
      offset = writePadding(out, start + 4, padding);
      offset += data.copy(out, offset, read, read + payload);
      read += payload;
      createHmac(algorithm, macKey).update(out.subarray(start, offset)).digest().copy(out, offset, 0, 4);
      offset += 4;
      id = (id + 1) >>> 0;
    }
    return out;
  };
}

// The chunks of one read are pushed as one buffer. A chunk's size, once its
// HMAC is checked, is kept while the rest of the chunk is awaited.
function chunkReader(algorithm, userKey) {
  const macKeyFor = macKeys(userKey);
  let id = 1;
  let awaited = 0;
  const queue = createByteQueue();
  const read = (data, push) => {
    queue.push(data);
    const pieces = [];
    while (queue.length >= 4) {
      const macKey = macKeyFor(id);
      let size = awaited;
      if (size === 0) {
        const head = Buffer.from([queue.peek(0), queue.peek(1)]);
        const sizeMac = createHmac(algorithm, macKey).update(head).digest();
        if (sizeMac[0] !== queue.peek(2) || sizeMac[1] !== queue.peek(3))
          throw protocolError('SSR auth_aes128 chunk size fails its HMAC');
        size = head.readUInt16LE(0);
        if (size < MIN_CHUNK || size >= MAX_CHUNK)
          throw protocolError(`SSR auth_aes128 chunk size ${size} out of range`);
      }
      if (queue.length < size) {
        awaited = size;
        break;
      }
      awaited = 0;
      const chunk = queue.take(size);
      const mac = createHmac(algorithm, macKey)
        .update(chunk.subarray(0, size - 4))
        .digest();
      if (mac.compare(chunk, size - 4, size, 0, 4) !== 0) throw protocolError('SSR auth_aes128 chunk fails its HMAC');
      id = (id + 1) >>> 0;
      const start = chunk[4] < 0xff ? chunk[4] + 4 : chunk.readUInt16LE(5) + 4;
      if (start > size - 4) throw protocolError('SSR auth_aes128 chunk padding runs past its end');
      if (start < size - 4) pieces.push(chunk.subarray(start, size - 4));
    }
    if (pieces.length > 0) push(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces));
  };
  read.holding = () => queue.length > 0;
  return read;
}

function createAuthAes128(name, protocol, algorithm) {
  const salt = protocol;
  return {
    name,
    summary: `ShadowsocksR protocol ${protocol}: a handshake with client id, connection id and clock, then HMAC-${algorithm.toUpperCase()}-checked chunks with random padding (goes before ss-stream-cipher)`,
    roles: [],
    // Every chunk carries an HMAC of its bytes.
    authenticated: true,
    params: {},
    placement,
    prepare(params, { now = Date.now } = {}) {
      const nextIds = createClientIds();
      // Python refreshes a client id's window after 3 minutes of silence.
      const insert = createReplayWindows({ idleMs: 3 * 60 * 1000, now });
      const blockKeys = new WeakMap();
      const blockKeyOf = (key) => {
        if (!blockKeys.has(key)) blockKeys.set(key, blockKey(key, salt));
        return blockKeys.get(key);
      };

      function handshake({ key, clientIv }, first) {
        const { clientId, connectionId } = nextIds();
        const macKey = Buffer.concat([clientIv, key]);
        const padding = randomInt(first.length > 400 ? 512 : 1024);
        const length = 7 + 24 + padding + first.length + 4;
        const block = Buffer.alloc(16);
        block.writeUInt32LE(unixTime(now), 0);
        clientId.copy(block, 4);
        block.writeUInt32LE(connectionId, 8);
        block.writeUInt16LE(length, 12);
        block.writeUInt16LE(padding, 14);
        const check = randomBytes(1);
        const part2 = Buffer.concat([randomBytes(4), encryptBlock(blockKeyOf(key), block)]);
        const head = Buffer.concat([
          check,
          hmac(algorithm, macKey, check).subarray(0, 6),
          part2,
          hmac(algorithm, macKey, part2).subarray(0, 4),
          randomBytes(padding),
          first,
        ]);
        return Buffer.concat([head, hmac(algorithm, key, head).subarray(0, 4)]);
      }

      // Returns the data the handshake carries once all of `head` is there,
      // or null while more is needed; throws on anything not a handshake.
      function readHandshake(head, { key, clientIv }, connection) {
        if (head.length < 7) return null;
        const macKey = Buffer.concat([clientIv, key]);
        if (hmac(algorithm, macKey, head.subarray(0, 1)).compare(head, 1, 7, 0, 6) !== 0) {
          throw protocolError(`SSR ${protocol} handshake fails its first HMAC`);
        }
        if (head.length < 31) return null;
        if (hmac(algorithm, macKey, head.subarray(7, 27)).compare(head, 27, 31, 0, 4) !== 0) {
          throw protocolError(`SSR ${protocol} handshake fails its second HMAC`);
        }
        const block = decryptBlock(blockKeyOf(key), head.subarray(11, 27));
        const length = block.readUInt16LE(12);
        const padding = block.readUInt16LE(14);
        if (length < 35 + padding || length > MAX_HANDSHAKE)
          throw protocolError(`SSR ${protocol} handshake length ${length} out of range`);
        if (head.length < length) return null;
        if (hmac(algorithm, key, head.subarray(0, length - 4)).compare(head, length - 4, length, 0, 4) !== 0) {
          throw protocolError(`SSR ${protocol} handshake fails its HMAC`);
        }
        checkClock(block.readUInt32LE(0), now);
        insert(block.readUInt32LE(4), block.readUInt32LE(8));
        recordHandshake(connection, head.subarray(11, 27));
        return { data: head.subarray(31 + padding, length - 4), rest: head.subarray(length) };
      }

      return (connection) => {
        let writeChunks = null;
        let readChunks = null;
        let pending = Buffer.alloc(0); // the handshake, until it is whole
        authenticatesStreamIv(connection);
        return {
          clientEncode(data, push) {
            if (writeChunks) return data.length > 0 && push(writeChunks(data));
            if (data.length === 0) return undefined;
            const keys = streamCipherKeys(connection, 'client');
            writeChunks = chunkWriter(algorithm, keys.key);
            const split = firstPartLength(data);
            const rest = data.subarray(split);
            push(
              rest.length > 0
                ? Buffer.concat([handshake(keys, data.subarray(0, split)), writeChunks(rest)])
                : handshake(keys, data),
            );
            return undefined;
          },
          clientDecode(data, push) {
            readChunks ??= chunkReader(algorithm, streamCipherKeys(connection, 'client').key);
            readChunks(data, push);
          },
          serverDecode(data, push) {
            if (readChunks) return readChunks(data, push);
            pending = Buffer.concat([pending, data]);
            const keys = streamCipherKeys(connection, 'server');
            const handshake = readHandshake(pending, keys, connection);
            if (!handshake) return undefined;
            pending = null;
            readChunks = chunkReader(algorithm, keys.key);
            if (handshake.data.length > 0) push(handshake.data);
            if (handshake.rest.length > 0) readChunks(handshake.rest, push);
            return undefined;
          },
          serverEncode(data, push) {
            if (data.length === 0) return;
            writeChunks ??= chunkWriter(algorithm, streamCipherKeys(connection, 'server').key);
            push(writeChunks(data));
          },
          // A FIN inside the handshake or a chunk is a cut stream, not its
          // end: the relay passes it on as a reset.
          decodeEnded() {
            if (pending?.length > 0 || readChunks?.holding())
              throw protocolError(`SSR ${protocol}: stream ended inside a chunk: truncated`);
          },
        };
      };
    },
  };
}

export const authAes128Md5 = createAuthAes128('ssr-auth-aes128-md5', 'auth_aes128_md5', 'md5');
export const authAes128Sha1 = createAuthAes128('ssr-auth-aes128-sha1', 'auth_aes128_sha1', 'sha1');
