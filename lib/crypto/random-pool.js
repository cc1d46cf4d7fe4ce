import { randomBytes } from 'node:crypto';

// Random bytes for padding and random sizes, drawn from a pool filled 64 KB
// at a time: one randomBytes() call per chunk costs more than the padding is
// worth. A refill takes a new buffer, so views handed out earlier (queued
// on a socket) never change.
const POOL = 64 * 1024;
let pool = randomBytes(POOL);
let used = 0;

export function randomView(n) {
  if (n > POOL) return randomBytes(n);
  if (used + n > POOL) {
    pool = randomBytes(POOL);
    used = 0;
  }
  const view = pool.subarray(used, used + n);
  used += n;
  return view;
}

// A whole number in [min, max], from one random byte (as blinksocks draws
// its chunk sizes: coarse, and enough to vary the lengths on the wire).
export const randomIntFromByte = (min, max) => min + Math.floor((randomView(1)[0] * (max - min + 1)) / 256);
