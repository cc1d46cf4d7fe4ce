// The ChaCha20 block function (RFC 8439, section 2.3) in JavaScript. node:crypto
// runs ChaCha20 far faster on bulk data, but a cipher object costs about 2 µs
// to create; for the one or two blocks a short record needs, and for
// HChaCha20, which node:crypto lacks, computing the block here is cheaper.
// Words live in locals so V8 keeps them in registers.

export const SIGMA = Uint32Array.of(0x61707865, 0x3320646e, 0x79622d32, 0x6b206574);

// Runs the 20 rounds over the 16 input words and writes the result to out;
// with feedForward the input is added back (the ChaCha20 block), without it
// the raw rounds are left (what HChaCha20 takes words 0-3 and 12-15 of).
export function chachaCore(input, out, feedForward) {
  let x0 = input[0] | 0,
    x1 = input[1] | 0,
    x2 = input[2] | 0,
    x3 = input[3] | 0;
  let x4 = input[4] | 0,
    x5 = input[5] | 0,
    x6 = input[6] | 0,
    x7 = input[7] | 0;
  let x8 = input[8] | 0,
    x9 = input[9] | 0,
    x10 = input[10] | 0,
    x11 = input[11] | 0;
  let x12 = input[12] | 0,
    x13 = input[13] | 0,
    x14 = input[14] | 0,
    x15 = input[15] | 0;
  for (let round = 0; round < 10; round++) {
    // columns
    x0 = (x0 + x4) | 0;
    x12 ^= x0;
    x12 = (x12 << 16) | (x12 >>> 16);
    x8 = (x8 + x12) | 0;
    x4 ^= x8;
    x4 = (x4 << 12) | (x4 >>> 20);
    x0 = (x0 + x4) | 0;
    x12 ^= x0;
    x12 = (x12 << 8) | (x12 >>> 24);
    x8 = (x8 + x12) | 0;
    x4 ^= x8;
    x4 = (x4 << 7) | (x4 >>> 25);
    x1 = (x1 + x5) | 0;
    x13 ^= x1;
    x13 = (x13 << 16) | (x13 >>> 16);
    x9 = (x9 + x13) | 0;
    x5 ^= x9;
    x5 = (x5 << 12) | (x5 >>> 20);
    x1 = (x1 + x5) | 0;
    x13 ^= x1;
    x13 = (x13 << 8) | (x13 >>> 24);
    x9 = (x9 + x13) | 0;
    x5 ^= x9;
    x5 = (x5 << 7) | (x5 >>> 25);
    x2 = (x2 + x6) | 0;
    x14 ^= x2;
    x14 = (x14 << 16) | (x14 >>> 16);
    x10 = (x10 + x14) | 0;
    x6 ^= x10;
    x6 = (x6 << 12) | (x6 >>> 20);
    x2 = (x2 + x6) | 0;
    x14 ^= x2;
    x14 = (x14 << 8) | (x14 >>> 24);
    x10 = (x10 + x14) | 0;
    x6 ^= x10;
    x6 = (x6 << 7) | (x6 >>> 25);
    x3 = (x3 + x7) | 0;
    x15 ^= x3;
    x15 = (x15 << 16) | (x15 >>> 16);
    x11 = (x11 + x15) | 0;
    x7 ^= x11;
    x7 = (x7 << 12) | (x7 >>> 20);
    x3 = (x3 + x7) | 0;
    x15 ^= x3;
    x15 = (x15 << 8) | (x15 >>> 24);
    x11 = (x11 + x15) | 0;
    x7 ^= x11;
    x7 = (x7 << 7) | (x7 >>> 25);
    // diagonals
    x0 = (x0 + x5) | 0;
    x15 ^= x0;
    x15 = (x15 << 16) | (x15 >>> 16);
    x10 = (x10 + x15) | 0;
    x5 ^= x10;
    x5 = (x5 << 12) | (x5 >>> 20);
    x0 = (x0 + x5) | 0;
    x15 ^= x0;
    x15 = (x15 << 8) | (x15 >>> 24);
    x10 = (x10 + x15) | 0;
    x5 ^= x10;
    x5 = (x5 << 7) | (x5 >>> 25);
    x1 = (x1 + x6) | 0;
    x12 ^= x1;
    x12 = (x12 << 16) | (x12 >>> 16);
    x11 = (x11 + x12) | 0;
    x6 ^= x11;
    x6 = (x6 << 12) | (x6 >>> 20);
    x1 = (x1 + x6) | 0;
    x12 ^= x1;
    x12 = (x12 << 8) | (x12 >>> 24);
    x11 = (x11 + x12) | 0;
    x6 ^= x11;
    x6 = (x6 << 7) | (x6 >>> 25);
    x2 = (x2 + x7) | 0;
    x13 ^= x2;
    x13 = (x13 << 16) | (x13 >>> 16);
    x8 = (x8 + x13) | 0;
    x7 ^= x8;
    x7 = (x7 << 12) | (x7 >>> 20);
    x2 = (x2 + x7) | 0;
    x13 ^= x2;
    x13 = (x13 << 8) | (x13 >>> 24);
    x8 = (x8 + x13) | 0;
    x7 ^= x8;
    x7 = (x7 << 7) | (x7 >>> 25);
    x3 = (x3 + x4) | 0;
    x14 ^= x3;
    x14 = (x14 << 16) | (x14 >>> 16);
    x9 = (x9 + x14) | 0;
    x4 ^= x9;
    x4 = (x4 << 12) | (x4 >>> 20);
    x3 = (x3 + x4) | 0;
    x14 ^= x3;
    x14 = (x14 << 8) | (x14 >>> 24);
    x9 = (x9 + x14) | 0;
    x4 ^= x9;
    x4 = (x4 << 7) | (x4 >>> 25);
  }
  if (feedForward) {
    x0 += input[0];
    x1 += input[1];
    x2 += input[2];
    x3 += input[3];
    x4 += input[4];
    x5 += input[5];
    x6 += input[6];
    x7 += input[7];
    x8 += input[8];
    x9 += input[9];
    x10 += input[10];
    x11 += input[11];
    x12 += input[12];
    x13 += input[13];
    x14 += input[14];
    x15 += input[15];
  }
  // A Uint32Array store wraps each sum to 32 bits.
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
  out[4] = x4;
  out[5] = x5;
  out[6] = x6;
  out[7] = x7;
  out[8] = x8;
  out[9] = x9;
  out[10] = x10;
  out[11] = x11;
  out[12] = x12;
  out[13] = x13;
  out[14] = x14;
  out[15] = x15;
  return out;
}
