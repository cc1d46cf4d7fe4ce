import { randomBytes } from 'node:crypto';
import { createByteQueue } from '../../wire/byte-queue.js';

// blinksocks' obfs-random-padding: the stream is cut into frames of
// [padding length, 1 byte][padding][data length, 2 bytes BE][data], so the
// cipher after it sees lengths that do not follow the application's writes.
// Frames carry 0x3FFF to 0xFFFF bytes, chosen at random as blinksocks does;
// only a short frame (the tail of a write, 1440 bytes or less) is padded,
// the shorter the more, since short records are the ones that fingerprint
// a protocol (a handshake, a keep-alive) and long ones are bulk transfer.
const MIN_FRAME = 0x3fff;
const MAX_FRAME = 0xffff;
const HEADER = 3;

// blinksocks' table: the most padding a frame of this length may get.
const paddingLimit = (length) => {
  if (length > 1440) return 0;
  if (length > 1300) return 31;
  if (length > 900) return 127;
  if (length > 400) return 521;
  return 1021;
};

// Random bytes come from a pool refilled 4 KB at a time: a call to
// randomBytes costs microseconds whatever its size, and a 64 KB read needs
// three bytes per frame and, for a short frame, a few hundred of padding.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
function pooledRandomBytes(n) {
  if (pool.length < n) pool = randomBytes(Math.max(POOL_BYTES, n));
  const bytes = pool.subarray(0, n);
  pool = pool.subarray(n);
  return bytes;
}

// Padding lengths come from one random byte, as in blinksocks: `byte % limit`,
// so a 1021 limit still gives at most 255 bytes, which the 1-byte field holds.
export function encodeFrames(data, random = pooledRandomBytes) {
  const frames = [];
  for (let offset = 0; offset < data.length;) {
    const [low, high, pick] = random(3);
    const size = MIN_FRAME + (((high << 8) | low) % (MAX_FRAME - MIN_FRAME + 1));
    const payload = data.subarray(offset, offset + size);
    offset += payload.length;
    const limit = paddingLimit(payload.length);
    const paddingLength = limit === 0 ? 0 : pick % limit;
    const header = Buffer.allocUnsafe(HEADER + paddingLength);
    header[0] = paddingLength;
    if (paddingLength > 0) random(paddingLength).copy(header, 1);
    header.writeUInt16BE(payload.length, 1 + paddingLength);
    frames.push(header, payload);
  }
  return frames;
}

// Every byte sequence is a valid frame sequence, so there is nothing to
// refuse. A frame's data is passed on as it arrives, not gathered first:
// frames reach 64 KB and span reads, and gathering them cost a copy of
// every byte (and their latency). What is held between reads is at most a
// partial header (1 + 255 + 2 bytes).
function decoder() {
  const queue = createByteQueue();
  let remaining = 0;
  return (data, push) => {
    queue.push(data);
    for (;;) {
      if (remaining > 0) {
        if (queue.length === 0) return;
        // The queue holds at most a header's leftovers and this read, and
        // the header was taken first: this is a view of the read.
        const piece = queue.take(Math.min(remaining, queue.length));
        remaining -= piece.length;
        push(piece);
        continue;
      }
      if (queue.length < 1) return;
      const paddingLength = queue.peek(0);
      const header = queue.take(1 + paddingLength + 2);
      if (!header) return;
      remaining = header.readUInt16BE(1 + paddingLength);
    }
  };
}

export default {
  name: 'obfs-random-padding',
  summary:
    'blinksocks random-length frames, short ones padded with up to 255 random bytes (between the address preset and the cipher)',
  roles: [],
  joinsWrites: true,
  params: {},
  prepare() {
    return () => {
      // One buffer a write: the cipher after this seals each push as a
      // record of its own, so a 3-byte frame header pushed alone would cost
      // an AEAD chunk of its own.
      const encode = (data, push) => {
        if (data.length > 0) push(Buffer.concat(encodeFrames(data)));
      };
      const decode = decoder();
      return { clientEncode: encode, serverEncode: encode, clientDecode: decode, serverDecode: decode };
    };
  },
};
