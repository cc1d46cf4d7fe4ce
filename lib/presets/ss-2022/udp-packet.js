import { createCipheriv, createDecipheriv, createSecretKey, randomInt } from 'node:crypto';
import { AEAD_2022_METHODS, deriveSessionSubkey } from '../../crypto/aead-2022-methods.js';
import { AEAD_METHODS, TAG_LENGTH } from '../../crypto/aead-methods.js';
import { randomView } from '../../crypto/random-pool.js';
import { openSealed } from '../../wire/aead-chunks.js';
import { protocolError } from '../../wire/protocol-error.js';
import { decodeAddressFrame, encodeAddressFrame } from '../udp/address-frame.js';
import { MAX_CLOCK_SKEW_S, MAX_PADDING, REQUEST_TYPE, RESPONSE_TYPE, unixSeconds } from './headers.js';

// SIP022 UDP. Every packet carries a session id (8 bytes, drawn by each
// side per association) and a packet id (8 bytes, counting from 0), then a
// body sealed with the session's key:
//   client -> server body: type 0 | u64be time | u16be padding length | padding | address | payload
//   server -> client body: type 1 | u64be time | client session id | u16be padding length | padding | address | payload
// AES methods: session id | packet id is one AES block encrypted (ECB)
// with the PSK; the body is AES-GCM under BLAKE3(PSK || session id) with
// the last 12 bytes of that block as nonce.
// 2022-blake3-chacha20-poly1305: a random 24-byte nonce, then XChaCha20-
// Poly1305 under the PSK itself over session id | packet id | body.
export const SESSION_ID_LENGTH = 8;
const IDS_LENGTH = 16;
const XCHACHA = AEAD_METHODS['xchacha20-ietf-poly1305'];
const XCHACHA_NONCE = 24;
// Derived session keys kept at once; a peer cycling session ids only
// costs us derivations.
const KEY_CACHE = 1024;

const readId = (bytes, at) => bytes.readUInt32BE(at) * 2 ** 32 + bytes.readUInt32BE(at + 4);
function writeId(bytes, at, id) {
  bytes.writeUInt32BE(Math.floor(id / 2 ** 32), at);
  bytes.writeUInt32BE(id % 2 ** 32, at + 4);
}

// { seal(sessionId, packetId, body) -> packet, open(packet) -> { sessionId, packetId, body }, overhead }
export function packetCipher(methodName, psk) {
  const { aead } = AEAD_2022_METHODS[methodName];
  if (aead === AEAD_METHODS['chacha20-ietf-poly1305']) {
    const key = XCHACHA.importKey(psk);
    return {
      overhead: XCHACHA_NONCE + IDS_LENGTH + TAG_LENGTH,
      seal(sessionId, packetId, body, nonce = randomView(XCHACHA_NONCE)) {
        const ids = Buffer.alloc(IDS_LENGTH);
        sessionId.copy(ids);
        writeId(ids, SESSION_ID_LENGTH, packetId);
        const cipher = XCHACHA.seal(key, nonce);
        const sealed = [cipher.update(ids), cipher.update(body)];
        cipher.final();
        return Buffer.concat([nonce, ...sealed, cipher.getAuthTag()]);
      },
      open(packet) {
        if (packet.length < XCHACHA_NONCE + IDS_LENGTH + TAG_LENGTH)
          throw protocolError(`datagram of ${packet.length} bytes is shorter than SIP022's headers`);
        const plaintext = openSealed(
          XCHACHA,
          key,
          Buffer.from(packet.subarray(0, XCHACHA_NONCE)),
          packet.subarray(XCHACHA_NONCE),
        );
        if (!plaintext) throw protocolError('AEAD tag mismatch in a datagram: wrong key or corrupted');
        return {
          sessionId: plaintext.subarray(0, SESSION_ID_LENGTH),
          packetId: readId(plaintext, SESSION_ID_LENGTH),
          body: plaintext.subarray(IDS_LENGTH),
        };
      },
    };
  }
  const ecb = `aes-${psk.length * 8}-ecb`;
  const blockKey = createSecretKey(psk);
  const keys = new Map();
  const sessionKey = (sessionId) => {
    const name = sessionId.toString('hex');
    let key = keys.get(name);
    if (!key) {
      if (keys.size >= KEY_CACHE) keys.clear();
      key = aead.importKey(deriveSessionSubkey(psk, sessionId));
      keys.set(name, key);
    }
    return key;
  };
  // ECB carries nothing from one block to the next, so one cipher object
  // each way serves every packet (update() a block at a time, never
  // final()) rather than a new one per packet.
  const encryptIds = createCipheriv(ecb, blockKey, null).setAutoPadding(false);
  const decryptIds = createDecipheriv(ecb, blockKey, null).setAutoPadding(false);
  return {
    overhead: IDS_LENGTH + TAG_LENGTH,
    seal(sessionId, packetId, body) {
      const ids = Buffer.alloc(IDS_LENGTH);
      sessionId.copy(ids);
      writeId(ids, SESSION_ID_LENGTH, packetId);
      const cipher = aead.seal(sessionKey(sessionId), ids.subarray(4));
      const ciphertext = cipher.update(body);
      cipher.final();
      return Buffer.concat([encryptIds.update(ids), ciphertext, cipher.getAuthTag()]);
    },
    open(packet) {
      if (packet.length < IDS_LENGTH + TAG_LENGTH)
        throw protocolError(`datagram of ${packet.length} bytes is shorter than SIP022's headers`);
      const ids = decryptIds.update(packet.subarray(0, IDS_LENGTH));
      const sessionId = ids.subarray(0, SESSION_ID_LENGTH);
      const body = openSealed(aead, sessionKey(sessionId), ids.subarray(4), packet.subarray(IDS_LENGTH));
      if (!body) throw protocolError('AEAD tag mismatch in a datagram: wrong key or corrupted');
      return { sessionId, packetId: readId(ids, SESSION_ID_LENGTH), body };
    },
  };
}

const checkTime = (body, now) => {
  const skew = Number(body.readBigUInt64BE(1)) - now;
  if (Math.abs(skew) > MAX_CLOCK_SKEW_S)
    throw protocolError(`datagram timestamp ${skew} s from this clock (over ${MAX_CLOCK_SKEW_S} s: a replay)`);
};

// The spec pads a datagram without payload; one with payload goes bare.
const paddingFor = (payload) => (payload.length > 0 ? 0 : 1 + randomInt(MAX_PADDING));

function encodeBody(type, clientSessionId, address, payload, now) {
  const head = Buffer.alloc(1 + 8 + (clientSessionId ? SESSION_ID_LENGTH : 0) + 2 + paddingFor(payload));
  head[0] = type;
  head.writeBigUInt64BE(BigInt(now), 1);
  let at = 9;
  if (clientSessionId) at += clientSessionId.copy(head, at);
  head.writeUInt16BE(head.length - at - 2, at);
  return Buffer.concat([head, encodeAddressFrame(address, payload)]);
}

// Returns { clientSessionId?, address, payload }; every length checked
// against the datagram, so a sealed but malformed body is refused, not read past.
function decodeBody(body, type, now) {
  const fixed = 1 + 8 + (type === RESPONSE_TYPE ? SESSION_ID_LENGTH : 0) + 2;
  if (body.length < fixed) throw protocolError(`datagram body of ${body.length} bytes is shorter than its header`);
  if (body[0] !== type) throw protocolError(`datagram type ${body[0]}, expected ${type}`);
  checkTime(body, now);
  const clientSessionId = type === RESPONSE_TYPE ? body.subarray(9, 9 + SESSION_ID_LENGTH) : undefined;
  const padding = body.readUInt16BE(fixed - 2);
  if (fixed + padding > body.length) throw protocolError(`padding of ${padding} bytes runs past the datagram`);
  return { clientSessionId, ...decodeAddressFrame(body.subarray(fixed + padding)) };
}

export const encodeRequestBody = (address, payload, now = unixSeconds()) =>
  encodeBody(REQUEST_TYPE, null, address, payload, now);
export const encodeResponseBody = (clientSessionId, address, payload, now = unixSeconds()) =>
  encodeBody(RESPONSE_TYPE, clientSessionId, address, payload, now);
export const decodeRequestBody = (body, now = unixSeconds()) => decodeBody(body, REQUEST_TYPE, now);
export const decodeResponseBody = (body, now = unixSeconds()) => decodeBody(body, RESPONSE_TYPE, now);
