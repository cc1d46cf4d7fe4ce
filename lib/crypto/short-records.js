// Sequences of short AEAD records (at most 16 bytes of plaintext), sealed and
// opened without a node:crypto cipher object per record.
//
// Why: every Shadowsocks AEAD chunk starts with a sealed 2-byte length, and
// node:crypto charges about 4 µs for each seal, however short (create the
// cipher object, update, final, getAuthTag), which is as much as the fixed
// cost of the 16 KB payload next to it. Here a length record costs a fraction
// of that, and the bytes on the wire are the standard construction's:
// test/unit/crypto-short-records.test.js checks every record against node:crypto's
// own AES-GCM and ChaCha20-Poly1305, and the interop tests against
// shadowsocks-libev.
//
// - AES-GCM: the two AES blocks a short record needs, E(K, J0) for the tag
//   and E(K, J0+1) for the keystream, come from node:crypto's AES-ECB,
//   computed for the next BATCH records in one call; the GHASH of the
//   record's single block is done here (ghash.js).
// - ChaCha20-Poly1305 (IETF and original) and XChaCha20-Poly1305: two
//   ChaCha20 blocks and a two-block Poly1305, all here (chacha20-block.js,
//   poly1305.js).
//
// A sequence's nonces are the little-endian counters offset, offset + step,
// offset + 2 * step, ...; each seal or open takes the next one.
import { createCipheriv } from 'node:crypto';
import { chachaCore, SIGMA } from './chacha20-block.js';
import { createGhashMultiplier } from './ghash.js';
import { hchacha20 } from './hchacha20.js';
import { addLittleEndian } from './nonce.js';
import { poly1305 } from './poly1305.js';

const MAX_SHORT_PLAINTEXT = 16;
const TAG = 16;
const BATCH = 16;

// Scratch space for one seal or open at a time (they run synchronously), so
// an idle connection carries only what must outlive a call.
const scratch = {
  // A zero block, then BATCH records' two counter blocks: the zero block's
  // encryption is the GHASH key, computed with a key's first batch.
  counters: Buffer.alloc(16 + 32 * BATCH),
  words: new Int32Array(4),
  expected: Buffer.alloc(TAG),
  block0: new Uint32Array(16),
  block1: new Uint32Array(16),
  polyKey: Buffer.alloc(32),
  macInput: Buffer.alloc(32),
  subkey: Buffer.alloc(32),
  // Where a small record's blocks start in what gcmSmallPayloads' prepare() returned.
  base: 0,
};
for (let i = 0; i < BATCH; i++) {
  scratch.counters.writeUInt32BE(1, 16 + 32 * i + 12);
  scratch.counters.writeUInt32BE(2, 16 + 32 * i + 28);
}
const BATCH_END = 16 + 32 * BATCH;

function checkLength(n) {
  if (n > MAX_SHORT_PLAINTEXT)
    throw new RangeError(`a short record holds at most ${MAX_SHORT_PLAINTEXT} bytes, not ${n}`);
}

// Compares without an early exit, like a MAC check should.
function sameTag(a, aOffset, b, bOffset) {
  let diff = 0;
  for (let i = 0; i < TAG; i++) diff |= a[aOffset + i] ^ b[bOffset + i];
  return diff === 0;
}

// The AES-ECB blocks of one key, and the GHASH multiplier of its hash key
// H = E(K, 0^128). H is encrypted with the first blocks the key needs, not
// in a call of its own: each update() is a native call and a new buffer,
// and a short connection makes only one or two per direction.
function ecbBlocks(ecb) {
  let multiply = null;
  return {
    // The encryption of blocks[start, end); blocks[start - 16, start) must
    // be a zero block, the hash key's, encrypted along while it is missing.
    encrypt(blocks, start, end) {
      if (multiply) return ecb.update(blocks.subarray(start, end));
      const out = ecb.update(blocks.subarray(start - 16, end));
      multiply = createGhashMultiplier(out);
      return out.subarray(16);
    },
    multiplier: () => multiply,
  };
}

// ecbAlgorithm: 'aes-128-ecb' | 'aes-192-ecb' | 'aes-256-ecb'; key: bytes or
// a KeyObject (cheaper per cipher object on current Node, see aead-methods).
// The records also offer smallPayloads: whole AES-GCM records of up to
// SMALL_PAYLOAD bytes under any nonce, from the same AES-ECB object, and
// cheaper when their nonces follow one another by the same step.
export function gcmShortRecords(ecbAlgorithm, key, { offset, step }) {
  const blocks = ecbBlocks(createCipheriv(ecbAlgorithm, key, null).setAutoPadding(false));
  const nonce = addLittleEndian(Buffer.alloc(12), offset);
  let masks = null;
  let next = BATCH;
  const nextMasks = () => {
    if (next === BATCH) {
      const { counters } = scratch;
      // Per record: J0 = nonce || 1 (masks the tag), J0+1 = nonce || 2 (keystream).
      for (let i = 0; i < BATCH; i++) {
        nonce.copy(counters, 16 + 32 * i);
        nonce.copy(counters, 16 + 32 * i + 16);
        addLittleEndian(nonce, step);
      }
      masks = blocks.encrypt(counters, 16, BATCH_END);
      next = 0;
    }
    return 32 * next++;
  };
  // GHASH over one zero-padded ciphertext block and the lengths block
  // (no additional data; ciphertext n bytes = 8n bits), masked by E(K, J0).
  const tag = (ciphertext, at, n, mask, out, outAt) => {
    const { words } = scratch;
    const multiply = blocks.multiplier();
    words.fill(0);
    for (let i = 0; i < n; i++) words[i >> 2] |= ciphertext[at + i] << (24 - 8 * (i & 3));
    let z = multiply(words[0], words[1], words[2], words[3]);
    z = multiply(z[0], z[1], z[2], z[3] ^ (8 * n));
    for (let w = 0; w < 4; w++) out.writeInt32BE(z[w] ^ masks.readInt32BE(mask + 4 * w), outAt + 4 * w);
  };
  return {
    smallPayloads: gcmSmallPayloads(blocks, step),
    // Writes ciphertext || tag (plaintext.length + 16 bytes) to out at at.
    seal(plaintext, out, at) {
      const n = plaintext.length;
      checkLength(n);
      const mask = nextMasks();
      for (let i = 0; i < n; i++) out[at + i] = plaintext[i] ^ masks[mask + 16 + i];
      tag(out, at, n, mask, out, at + n);
    },
    // record: ciphertext || tag. Writes the plaintext to out and returns true,
    // or returns false (writing nothing) when the tag does not match.
    open(record, out) {
      const n = record.length - TAG;
      checkLength(n);
      const mask = nextMasks();
      tag(record, 0, n, mask, scratch.expected, 0);
      if (!sameTag(scratch.expected, 0, record, n)) return false;
      for (let i = 0; i < n; i++) out[i] = record[i] ^ masks[mask + 16 + i];
      return true;
    },
  };
}

// Up to this many bytes a payload record (a request, a response, a
// datagram) is sealed and opened here; past it, node:crypto's AES-GCM
// (AES-NI and carry-less multiplication) is faster than GHASH in
// JavaScript, even with a cipher object per record
// (docs/notes/performance.md, "Small records").
export const SMALL_PAYLOAD = 256;
// A record's blocks: J0, then one for every 16 bytes of payload.
const MOST_WIDTH = 1 + SMALL_PAYLOAD / 16;
// A zero block (see ecbBlocks), then up to BATCH records' counter blocks.
const smallCounters = Buffer.alloc(16 + 16 * MOST_WIDTH * BATCH);

// The nonce of the record whose blocks encryptRecords() writes next.
const cursor = Buffer.alloc(12);

// Encrypts the blocks of `count` records of `width` blocks each, the first
// under `nonce` and each next one `step` on: J0 = nonce || 1, then
// nonce || 2, 3, ... (NIST SP 800-38D, 7.1). Record r's blocks start at
// 16 * width * r in what it returns.
function encryptRecords(blocks, step, nonce, count, width) {
  nonce.copy(cursor, 0, 0, 12);
  let at = 16;
  for (let r = 0; r < count; r++, addLittleEndian(cursor, step)) {
    const n0 = cursor.readUInt32LE(0);
    const n1 = cursor.readUInt32LE(4);
    const n2 = cursor.readUInt32LE(8);
    for (let b = 1; b <= width; b++, at += 16) {
      smallCounters.writeUInt32LE(n0, at);
      smallCounters.writeUInt32LE(n1, at + 4);
      smallCounters.writeUInt32LE(n2, at + 8);
      smallCounters.writeUInt32BE(b, at + 12);
    }
  }
  return blocks.encrypt(smallCounters, 16, at);
}

// AES-GCM records of up to SMALL_PAYLOAD bytes, no additional data, under a
// 12-byte nonce given per call: J0 = nonce || 1 masks the tag, nonce || 2,
// 3, ... the payload. GHASH runs over the ciphertext here; the AES blocks
// come from node:crypto's AES-ECB.
//
// An update() call costs about 1.8 µs however few blocks it encrypts
// (2.4 µs for 32 blocks, 3.0 for 112), and a kept-alive request is four
// small records, one a direction in each relay. So from a sequence's
// second small record on, where the nonces come in sequence (each `step`
// after the one before, as a stream's payloads do), the blocks of the next
// records are encrypted ahead, as wide as the largest record of the run so
// far: a run that used its batch to the end gets one twice as long next
// time, up to BATCH. A nonce out of sequence (after a large record, which
// node:crypto seals) starts again at one record. A record's blocks are
// taken from a batch only when its nonce is the one they were made for,
// so prediction decides what is encrypted ahead, never what is used.
function gcmSmallPayloads(blocks, step) {
  // Nothing more until a second small record: a connection of one request
  // (each relay has two of these sequences a connection, and on Node 24
  // what they hold is promoted with it) keeps no run.
  let records = 0;
  // { batch, count, width, next, expect }: the batch's blocks (null once
  // used up), `count` records of `width` blocks, the next one number `next`
  // under nonce `expect`.
  let run = null;

  // GHASH of the ciphertext blocks (the last zero-padded) and the lengths
  // block, XORed with E(K, J0) from masks at base, written to out at outAt.
  const tag = (ciphertext, at, n, masks, base, out, outAt) => {
    const multiply = blocks.multiplier();
    let z0 = 0,
      z1 = 0,
      z2 = 0,
      z3 = 0;
    const whole = at + (n & ~15);
    let i = at;
    for (; i < whole; i += 16) {
      const z = multiply(
        z0 ^ ciphertext.readInt32BE(i),
        z1 ^ ciphertext.readInt32BE(i + 4),
        z2 ^ ciphertext.readInt32BE(i + 8),
        z3 ^ ciphertext.readInt32BE(i + 12),
      );
      z0 = z[0];
      z1 = z[1];
      z2 = z[2];
      z3 = z[3];
    }
    if (i < at + n) {
      const words = scratch.words;
      words.fill(0);
      for (let j = 0; i + j < at + n; j++) words[j >> 2] |= ciphertext[i + j] << (24 - 8 * (j & 3));
      const z = multiply(z0 ^ words[0], z1 ^ words[1], z2 ^ words[2], z3 ^ words[3]);
      z0 = z[0];
      z1 = z[1];
      z2 = z[2];
      z3 = z[3];
    }
    // len(A) = 0 || len(C) in bits, 64-bit big-endian each.
    const z = multiply(z0, z1, z2, z3 ^ (8 * n));
    for (let w = 0; w < 4; w++) out.writeInt32BE(z[w] ^ masks.readInt32BE(base + 4 * w), outAt + 4 * w);
  };

  // The blocks of the record under nonce with n bytes, from scratch.base
  // on (set here; read at once, before the next call).
  const prepare = (nonce, n) => {
    if (n > SMALL_PAYLOAD) throw new RangeError(`a small record holds at most ${SMALL_PAYLOAD} bytes, not ${n}`);
    const need = 1 + Math.ceil(n / 16);
    scratch.base = 0;
    if (++records === 1) return encryptRecords(blocks, step, nonce, 1, need);
    run ??= { batch: null, count: 1, width: 0, next: 1, expect: Buffer.alloc(12) };
    const { expect } = run;
    const inSequence =
      records > 2 &&
      nonce.readUInt32LE(0) === expect.readUInt32LE(0) &&
      nonce.readUInt32LE(4) === expect.readUInt32LE(4) &&
      nonce.readUInt32LE(8) === expect.readUInt32LE(8);
    if (!inSequence || run.next === run.count || need > run.width) {
      if (!inSequence) {
        run.count = records === 2 ? 2 : 1;
        run.width = need;
      } else {
        if (run.next === run.count) run.count = Math.min(BATCH, 2 * run.count);
        run.width = Math.max(run.width, need);
      }
      run.batch = encryptRecords(blocks, step, nonce, run.count, run.width);
      run.next = 0;
      nonce.copy(expect, 0, 0, 12);
    }
    const masks = run.batch;
    scratch.base = 16 * run.width * run.next++;
    if (run.next === run.count) run.batch = null;
    // The run goes on from the record after this one.
    addLittleEndian(expect, step);
    return masks;
  };
  return {
    maxLength: SMALL_PAYLOAD,
    // Writes ciphertext || tag (plaintext.length + 16 bytes) to out at at.
    sealInto(nonce, plaintext, out, at) {
      const n = plaintext.length;
      const masks = prepare(nonce, n);
      const { base } = scratch;
      for (let i = 0; i < n; i++) out[at + i] = plaintext[i] ^ masks[base + 16 + i];
      tag(out, at, n, masks, base, out, at + n);
    },
    // record: ciphertext || tag. The plaintext in a new Buffer (the
    // record is the caller's, never written), or null when the tag does
    // not match.
    open(nonce, record) {
      const n = record.length - TAG;
      const masks = prepare(nonce, n);
      const { base } = scratch;
      tag(record, 0, n, masks, base, scratch.expected, 0);
      if (!sameTag(scratch.expected, 0, record, n)) return null;
      const plaintext = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) plaintext[i] = record[i] ^ masks[base + 16 + i];
      return plaintext;
    },
  };
}

// Poly1305 input, RFC 8439 (2.8), for up to 16 bytes of ciphertext and no
// additional data: the ciphertext zero-padded to 16 bytes, then
// le64(0) || le64(length).
function ietfMac(polyKey, ciphertext, at, n, out, outAt) {
  const { macInput } = scratch;
  macInput.fill(0);
  ciphertext.copy(macInput, 0, at, at + n);
  macInput.writeUInt32LE(n, 24);
  // Empty ciphertext pads to nothing: only the lengths block is MACed.
  poly1305(polyKey, macInput, out, outAt, n === 0 ? 16 : 0, 32);
}

// Poly1305 input of the original construction (chacha20-poly1305-original.js)
// for no additional data: le64(0) || ciphertext || le64(length), unpadded.
function originalMac(polyKey, ciphertext, at, n, out, outAt) {
  const { macInput } = scratch;
  macInput.fill(0);
  ciphertext.copy(macInput, 8, at, at + n);
  macInput.writeUInt32LE(n, 8 + n);
  poly1305(polyKey, macInput, out, outAt, 0, 16 + n);
}

// extended: XChaCha20-Poly1305 (24-byte nonce; HChaCha20 subkey per record).
export function chachaShortRecords(key, { offset, step, extended = false }) {
  const nonce = addLittleEndian(Buffer.alloc(extended ? 24 : 12), offset);
  return chachaRecords(key, { nonce, advance: () => addLittleEndian(nonce, step), extended, mac: ietfMac });
}

// The original, 8-byte-nonce ChaCha20-Poly1305: its keystream is the IETF
// one under the 12-byte nonce 0x00000000 || nonce, its MAC input another.
// Without this, each 2-byte length cost a node:crypto chacha20 object.
export function chachaOriginalShortRecords(key, { offset, step }) {
  const nonce = Buffer.alloc(12);
  const counter = addLittleEndian(nonce.subarray(4), offset);
  return chachaRecords(key, {
    nonce,
    advance: () => addLittleEndian(counter, step),
    extended: false,
    mac: originalMac,
  });
}

// Seals and opens records under nonce, which advance() moves on after each.
function chachaRecords(key, { nonce, advance, extended, mac }) {
  const state = new Uint32Array(16);
  state.set(SIGMA, 0);
  const setKey = (k) => {
    for (let i = 0; i < 8; i++) state[4 + i] = k.readUInt32LE(i * 4);
  };
  setKey(key);
  const { block0, block1, polyKey } = scratch;

  // Block 0 is the one-time Poly1305 key, block 1 the keystream (RFC 8439, 2.8).
  const nextBlocks = () => {
    if (extended) {
      setKey(hchacha20(key, nonce.subarray(0, 16), scratch.subkey));
      state[13] = 0;
      state[14] = nonce.readUInt32LE(16);
      state[15] = nonce.readUInt32LE(20);
    } else {
      state[13] = nonce.readUInt32LE(0);
      state[14] = nonce.readUInt32LE(4);
      state[15] = nonce.readUInt32LE(8);
    }
    advance();
    state[12] = 0;
    chachaCore(state, block0, true);
    state[12] = 1;
    chachaCore(state, block1, true);
    for (let i = 0; i < 8; i++) polyKey.writeUInt32LE(block0[i], 4 * i);
  };
  const keystream = (i) => (block1[i >> 2] >>> (8 * (i & 3))) & 0xff;
  return {
    seal(plaintext, out, at) {
      const n = plaintext.length;
      checkLength(n);
      nextBlocks();
      for (let i = 0; i < n; i++) out[at + i] = plaintext[i] ^ keystream(i);
      mac(polyKey, out, at, n, out, at + n);
    },
    open(record, out) {
      const n = record.length - TAG;
      checkLength(n);
      nextBlocks();
      mac(polyKey, record, 0, n, scratch.expected, 0);
      if (!sameTag(scratch.expected, 0, record, n)) return false;
      for (let i = 0; i < n; i++) out[i] = record[i] ^ keystream(i);
      return true;
    },
  };
}
