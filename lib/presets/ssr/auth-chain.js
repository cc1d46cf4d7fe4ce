import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { evpBytesToKey } from '../../crypto/evp-bytes-to-key.js';
import { createByteQueue } from '../../wire/byte-queue.js';
import { protocolError } from '../../wire/protocol-error.js';
import { chainAPadding, chainBPadding, chainBSizes } from './auth-chain-padding.js';
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

// ShadowsocksR's auth_chain_a and auth_chain_b (obfsplugin/auth_chain.py).
// The client opens with a 36-byte handshake:
//   [4 random][8 HMAC-MD5(iv+key) of it]
//   [4 uid ^ that HMAC][16 AES(utc, client id, connection id, overhead, 0)][4 HMAC-MD5(key)]
// then each direction is a chain of frames:
//   [2 length ^ last hash][padding with the RC4-encrypted data inside][2 HMAC]
// The HMAC, keyed by key + frame number (32-bit LE), becomes the next
// frame's "last hash"; the padding's length and the data's place in it are
// drawn from that hash, so neither is sent. RC4's key is
// EVP_BytesToKey(base64(key) + base64(first HMAC)); each direction keeps
// its own RC4 stream. The server's first frame starts with its TCP MSS.
const CLIENT_UNIT = 2800; // the Python client's unit_len
const TCP_MSS = 1460; // what the Python server announces on loopback
const OVERHEAD = 4;
const SERVER_UNIT = TCP_MSS - OVERHEAD;
const MAX_FRAME = 4096; // length + padding; the Python decoder refuses this and above

const le16 = (hash) => hash.readUInt16LE(14);

const rc4Key = (userKey, firstHash) => evpBytesToKey(userKey.toString('base64') + firstHash.toString('base64'), 16);

// One direction's frames. `hash` is the hash the first frame follows. A
// write is encrypted in one RC4 call and framed into one buffer; only
// frames under 1441 bytes carry padding (under 1440 bytes), and of a write
// only the last frame can be that short.
const MAX_PADDING = 1440;

function frameWriter({ userKey, cipher, pad, hash, unit }) {
  const macKeyFor = macKeys(userKey);
  let id = 1;
  let last = hash;
  return (data) => {
    const encrypted = cipher.update(data);
    const count = Math.max(1, Math.ceil(encrypted.length / unit));
    const out = Buffer.allocUnsafe(encrypted.length + count * 4 + MAX_PADDING);
    let offset = 0;
    for (let read = 0, i = 0; i < count; i++) {
      const size = Math.min(unit, encrypted.length - read);
      const { padding, start } = pad(last, size);
      const frameStart = offset;
      out.writeUInt16LE(size ^ le16(last), offset);
      offset += 2;
      if (padding > 0) {
        const noise = randomBytes(padding);
        noise.copy(out, offset, 0, start);
        noise.copy(out, offset + start + size, start);
      }
      encrypted.copy(out, offset + start, read, read + size);
      read += size;
      offset += padding + size;
      last = createHmac('md5', macKeyFor(id)).update(out.subarray(frameStart, offset)).digest();
      out[offset] = last[0];
      out[offset + 1] = last[1];
      offset += 2;
      id = (id + 1) >>> 0;
    }
    return out.subarray(0, offset);
  };
}

// The frames of one read are decrypted in one RC4 call and pushed as one.
function frameReader({ userKey, decipher, pad, hash }) {
  const macKeyFor = macKeys(userKey);
  let id = 1;
  let last = hash;
  const queue = createByteQueue();
  const read = (data, push) => {
    queue.push(data);
    const pieces = [];
    while (queue.length >= 4) {
      const size = (queue.peek(0) | (queue.peek(1) << 8)) ^ le16(last);
      const { padding, start } = pad(last, size);
      const length = size + padding;
      if (length >= MAX_FRAME) throw protocolError(`SSR auth_chain frame of ${length} bytes is too long`);
      if (queue.length < length + 4) break;
      const frame = queue.take(length + 4);
      const mac = createHmac('md5', macKeyFor(id))
        .update(frame.subarray(0, length + 2))
        .digest();
      if (mac[0] !== frame[length + 2] || mac[1] !== frame[length + 3])
        throw protocolError('SSR auth_chain frame fails its HMAC');
      last = mac;
      id = (id + 1) >>> 0;
      if (size > 0) pieces.push(frame.subarray(2 + start, 2 + start + size));
    }
    if (pieces.length > 0) push(decipher.update(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces)));
  };
  read.holding = () => queue.length > 0;
  return read;
}

function createAuthChain(name, protocol, variant) {
  return {
    name,
    summary: `ShadowsocksR protocol ${protocol}: a handshake with client id, connection id and clock, then RC4-encrypted frames whose lengths and ${variant === 'b' ? 'key-specific ' : ''}padding hide behind a chain of HMAC-MD5s (goes before ss-stream-cipher)`,
    roles: [],
    // Every frame carries an HMAC of its bytes.
    authenticated: true,
    params: {},
    placement,
    needsLegacyProvider: () => true, // RC4
    prepare(params, { now = Date.now } = {}) {
      const nextIds = createClientIds();
      // Python refreshes a client id's window after 10 minutes of silence.
      const insert = createReplayWindows({ idleMs: 10 * 60 * 1000, now });
      const derived = new WeakMap(); // per key: the block key and auth_chain_b's sizes
      const derive = (key) => {
        if (!derived.has(key)) {
          const sizes = variant === 'b' ? chainBSizes(key) : null;
          derived.set(key, {
            blockKey: blockKey(key, protocol),
            pad: sizes ? (hash, size) => chainBPadding(sizes, hash, size) : chainAPadding,
          });
        }
        return derived.get(key);
      };

      // The client's handshake: the bytes, and the two hashes the frame
      // chains start from.
      function handshake({ key, clientIv }) {
        const { clientId, connectionId } = nextIds();
        const check = randomBytes(4);
        const clientHash = hmac('md5', Buffer.concat([clientIv, key]), check);
        const uid = randomBytes(4);
        for (let i = 0; i < 4; i++) uid[i] ^= clientHash[8 + i];
        const block = Buffer.alloc(16);
        block.writeUInt32LE(unixTime(now), 0);
        clientId.copy(block, 4);
        block.writeUInt32LE(connectionId, 8);
        block.writeUInt16LE(OVERHEAD, 12);
        const part = Buffer.concat([uid, encryptBlock(derive(key).blockKey, block)]);
        const serverHash = hmac('md5', key, part);
        return {
          bytes: Buffer.concat([check, clientHash.subarray(0, 8), part, serverHash.subarray(0, 4)]),
          clientHash,
          serverHash,
        };
      }

      function readHandshake(head, { key, clientIv }, connection) {
        if (head.length < 12) return null;
        const clientHash = hmac('md5', Buffer.concat([clientIv, key]), head.subarray(0, 4));
        if (clientHash.compare(head, 4, 12, 0, 8) !== 0)
          throw protocolError(`SSR ${protocol} handshake fails its first HMAC`);
        if (head.length < 36) return null;
        const serverHash = hmac('md5', key, head.subarray(12, 32));
        if (serverHash.compare(head, 32, 36, 0, 4) !== 0)
          throw protocolError(`SSR ${protocol} handshake fails its second HMAC`);
        const block = decryptBlock(derive(key).blockKey, head.subarray(16, 32));
        checkClock(block.readUInt32LE(0), now);
        insert(block.readUInt32LE(4), block.readUInt32LE(8));
        recordHandshake(connection, head.subarray(16, 32));
        return { clientHash, serverHash, rest: head.subarray(36) };
      }

      // Both ends' frame codecs, once the handshake fixed the hashes.
      function codecs(key, { clientHash, serverHash }, role) {
        const rc4 = rc4Key(key, clientHash);
        const { pad } = derive(key);
        const client = role === 'client';
        return {
          write: frameWriter({
            userKey: key,
            cipher: createCipheriv('rc4', rc4, null),
            pad,
            hash: client ? clientHash : serverHash,
            unit: client ? CLIENT_UNIT : SERVER_UNIT,
          }),
          read: frameReader({
            userKey: key,
            decipher: createDecipheriv('rc4', rc4, null),
            pad,
            hash: client ? serverHash : clientHash,
          }),
        };
      }

      return (connection) => {
        let frames = null;
        let pending = Buffer.alloc(0); // the server's view of the handshake, until it is whole
        let mssPending = true; // the client's: the server's first 2 bytes are its TCP MSS
        authenticatesStreamIv(connection);
        return {
          clientEncode(data, push) {
            if (frames) return data.length > 0 && push(frames.write(data));
            if (data.length === 0) return undefined;
            const keys = streamCipherKeys(connection, 'client');
            const opening = handshake(keys);
            frames = codecs(keys.key, opening, 'client');
            const split = firstPartLength(data);
            const parts = [opening.bytes, frames.write(data.subarray(0, split))];
            if (split < data.length) parts.push(frames.write(data.subarray(split)));
            push(Buffer.concat(parts));
            return undefined;
          },
          clientDecode(data, push) {
            if (!frames) throw protocolError(`SSR ${protocol}: the server spoke before the handshake`);
            frames.read(data, (plain) => {
              if (!mssPending) return push(plain);
              if (plain.length < 2) throw protocolError(`SSR ${protocol}: the server's first frame lacks its TCP MSS`);
              mssPending = false;
              if (plain.length > 2) push(plain.subarray(2));
              return undefined;
            });
          },
          serverDecode(data, push) {
            if (frames) return frames.read(data, push);
            pending = Buffer.concat([pending, data]);
            const keys = streamCipherKeys(connection, 'server');
            const opening = readHandshake(pending, keys, connection);
            if (!opening) return undefined;
            pending = null;
            frames = codecs(keys.key, opening, 'server');
            if (opening.rest.length > 0) frames.read(opening.rest, push);
            return undefined;
          },
          serverEncode(data, push) {
            if (data.length === 0) return;
            if (mssPending) {
              mssPending = false;
              const mss = Buffer.alloc(2);
              mss.writeUInt16LE(TCP_MSS);
              data = Buffer.concat([mss, data]);
            }
            push(frames.write(data));
          },
          // A FIN inside the handshake or a frame is a cut stream, not its
          // end: the relay passes it on as a reset.
          decodeEnded() {
            if (pending?.length > 0 || frames?.read.holding())
              throw protocolError(`SSR ${protocol}: stream ended inside a frame: truncated`);
          },
        };
      };
    },
  };
}

export const authChainA = createAuthChain('ssr-auth-chain-a', 'auth_chain_a', 'a');
export const authChainB = createAuthChain('ssr-auth-chain-b', 'auth_chain_b', 'b');
