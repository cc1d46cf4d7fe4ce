// Poly1305 (RFC 8439, section 2.5) in JavaScript, for the short records where
// a node:crypto cipher object would cost more than the MAC itself.
//
// Numbers are held as ten 13-bit limbs in plain doubles: a product of a limb
// and 5 times a limb stays under 2^31 and a sum of ten under 2^35, so every
// step is exact (doubles hold integers to 2^53) without BigInt's allocations.
// A carry is the sum divided by 2^13 (exact in floating point) truncated with
// | 0, which is safe because it stays below 2^23. The limbs live in locals
// (the multiplication is written out) so V8 keeps them in registers.
//
// Not constant-time: fine for a benchmark relay on loopback, and said here so
// nobody mistakes it for a hardened implementation.

const LIMB = 8192; // 2^13
const block = new Uint8Array(16);

// Writes the 16-byte tag of message (bytes start..end) under the 32-byte
// one-time key to out at outOffset.
export function poly1305(key, message, out, outOffset = 0, start = 0, end = message.length) {
  // r, clamped (RFC 8439, 2.5.1), as 13-bit limbs; s = 5r folds 2^130 back.
  const k0 = key[0] | (key[1] << 8),
    k1 = key[2] | ((key[3] & 15) << 8);
  const k2 = (key[4] & 252) | (key[5] << 8),
    k3 = key[6] | ((key[7] & 15) << 8);
  const k4 = (key[8] & 252) | (key[9] << 8),
    k5 = key[10] | ((key[11] & 15) << 8);
  const k6 = (key[12] & 252) | (key[13] << 8),
    k7 = key[14] | ((key[15] & 15) << 8);
  const r0 = k0 & 0x1fff,
    r1 = ((k0 >>> 13) | (k1 << 3)) & 0x1fff,
    r2 = ((k1 >>> 10) | (k2 << 6)) & 0x1fff;
  const r3 = ((k2 >>> 7) | (k3 << 9)) & 0x1fff,
    r4 = ((k3 >>> 4) | (k4 << 12)) & 0x1fff,
    r5 = (k4 >>> 1) & 0x1fff;
  const r6 = ((k4 >>> 14) | (k5 << 2)) & 0x1fff,
    r7 = ((k5 >>> 11) | (k6 << 5)) & 0x1fff;
  const r8 = ((k6 >>> 8) | (k7 << 8)) & 0x1fff,
    r9 = k7 >>> 5;
  const s1 = 5 * r1,
    s2 = 5 * r2,
    s3 = 5 * r3,
    s4 = 5 * r4,
    s5 = 5 * r5,
    s6 = 5 * r6,
    s7 = 5 * r7,
    s8 = 5 * r8,
    s9 = 5 * r9;
  let h0 = 0,
    h1 = 0,
    h2 = 0,
    h3 = 0,
    h4 = 0,
    h5 = 0,
    h6 = 0,
    h7 = 0,
    h8 = 0,
    h9 = 0;

  for (let offset = start; offset < end; offset += 16) {
    let bytes = message,
      at = offset,
      hibit = 1 << 11; // 2^128 = 2^(13*9 + 11)
    if (end - offset < 16) {
      // A short last block gets a 1 byte after it instead of 2^128.
      block.fill(0);
      block.set(message.subarray(offset, end));
      block[end - offset] = 1;
      bytes = block;
      at = 0;
      hibit = 0;
    }
    const t0 = bytes[at] | (bytes[at + 1] << 8),
      t1 = bytes[at + 2] | (bytes[at + 3] << 8);
    const t2 = bytes[at + 4] | (bytes[at + 5] << 8),
      t3 = bytes[at + 6] | (bytes[at + 7] << 8);
    const t4 = bytes[at + 8] | (bytes[at + 9] << 8),
      t5 = bytes[at + 10] | (bytes[at + 11] << 8);
    const t6 = bytes[at + 12] | (bytes[at + 13] << 8),
      t7 = bytes[at + 14] | (bytes[at + 15] << 8);
    h0 += t0 & 0x1fff;
    h1 += ((t0 >>> 13) | (t1 << 3)) & 0x1fff;
    h2 += ((t1 >>> 10) | (t2 << 6)) & 0x1fff;
    h3 += ((t2 >>> 7) | (t3 << 9)) & 0x1fff;
    h4 += ((t3 >>> 4) | (t4 << 12)) & 0x1fff;
    h5 += (t4 >>> 1) & 0x1fff;
    h6 += ((t4 >>> 14) | (t5 << 2)) & 0x1fff;
    h7 += ((t5 >>> 11) | (t6 << 5)) & 0x1fff;
    h8 += ((t6 >>> 8) | (t7 << 8)) & 0x1fff;
    h9 += (t7 >>> 5) | hibit;
    {
      // h = h * r mod 2^130 - 5
      const d0 = h0 * r0 + h1 * s9 + h2 * s8 + h3 * s7 + h4 * s6 + h5 * s5 + h6 * s4 + h7 * s3 + h8 * s2 + h9 * s1;
      const d1 = h0 * r1 + h1 * r0 + h2 * s9 + h3 * s8 + h4 * s7 + h5 * s6 + h6 * s5 + h7 * s4 + h8 * s3 + h9 * s2;
      const d2 = h0 * r2 + h1 * r1 + h2 * r0 + h3 * s9 + h4 * s8 + h5 * s7 + h6 * s6 + h7 * s5 + h8 * s4 + h9 * s3;
      const d3 = h0 * r3 + h1 * r2 + h2 * r1 + h3 * r0 + h4 * s9 + h5 * s8 + h6 * s7 + h7 * s6 + h8 * s5 + h9 * s4;
      const d4 = h0 * r4 + h1 * r3 + h2 * r2 + h3 * r1 + h4 * r0 + h5 * s9 + h6 * s8 + h7 * s7 + h8 * s6 + h9 * s5;
      const d5 = h0 * r5 + h1 * r4 + h2 * r3 + h3 * r2 + h4 * r1 + h5 * r0 + h6 * s9 + h7 * s8 + h8 * s7 + h9 * s6;
      const d6 = h0 * r6 + h1 * r5 + h2 * r4 + h3 * r3 + h4 * r2 + h5 * r1 + h6 * r0 + h7 * s9 + h8 * s8 + h9 * s7;
      const d7 = h0 * r7 + h1 * r6 + h2 * r5 + h3 * r4 + h4 * r3 + h5 * r2 + h6 * r1 + h7 * r0 + h8 * s9 + h9 * s8;
      const d8 = h0 * r8 + h1 * r7 + h2 * r6 + h3 * r5 + h4 * r4 + h5 * r3 + h6 * r2 + h7 * r1 + h8 * r0 + h9 * s9;
      const d9 = h0 * r9 + h1 * r8 + h2 * r7 + h3 * r6 + h4 * r5 + h5 * r4 + h6 * r3 + h7 * r2 + h8 * r1 + h9 * r0;
      let c = (d0 / LIMB) | 0;
      h0 = d0 - c * LIMB;
      let v = d1 + c;
      c = (v / LIMB) | 0;
      h1 = v - c * LIMB;
      v = d2 + c;
      c = (v / LIMB) | 0;
      h2 = v - c * LIMB;
      v = d3 + c;
      c = (v / LIMB) | 0;
      h3 = v - c * LIMB;
      v = d4 + c;
      c = (v / LIMB) | 0;
      h4 = v - c * LIMB;
      v = d5 + c;
      c = (v / LIMB) | 0;
      h5 = v - c * LIMB;
      v = d6 + c;
      c = (v / LIMB) | 0;
      h6 = v - c * LIMB;
      v = d7 + c;
      c = (v / LIMB) | 0;
      h7 = v - c * LIMB;
      v = d8 + c;
      c = (v / LIMB) | 0;
      h8 = v - c * LIMB;
      v = d9 + c;
      c = (v / LIMB) | 0;
      h9 = v - c * LIMB;
      h0 += c * 5;
      c = (h0 / LIMB) | 0;
      h0 -= c * LIMB;
      h1 += c;
    }
  }

  // Carry fully (three passes leave every limb below 2^13), then h mod p:
  // h + 5 reaching 2^130 means h >= p, and g = h + 5 - 2^130 is the result.
  for (let pass = 0; pass < 3; pass++) {
    let c = (h0 / LIMB) | 0;
    h0 -= c * LIMB;
    h1 += c;
    c = (h1 / LIMB) | 0;
    h1 -= c * LIMB;
    h2 += c;
    c = (h2 / LIMB) | 0;
    h2 -= c * LIMB;
    h3 += c;
    c = (h3 / LIMB) | 0;
    h3 -= c * LIMB;
    h4 += c;
    c = (h4 / LIMB) | 0;
    h4 -= c * LIMB;
    h5 += c;
    c = (h5 / LIMB) | 0;
    h5 -= c * LIMB;
    h6 += c;
    c = (h6 / LIMB) | 0;
    h6 -= c * LIMB;
    h7 += c;
    c = (h7 / LIMB) | 0;
    h7 -= c * LIMB;
    h8 += c;
    c = (h8 / LIMB) | 0;
    h8 -= c * LIMB;
    h9 += c;
    c = (h9 / LIMB) | 0;
    h9 -= c * LIMB;
    h0 += c * 5;
  }
  let g0 = h0 + 5,
    c = (g0 / LIMB) | 0;
  g0 -= c * LIMB;
  let g1 = h1 + c;
  c = (g1 / LIMB) | 0;
  g1 -= c * LIMB;
  let g2 = h2 + c;
  c = (g2 / LIMB) | 0;
  g2 -= c * LIMB;
  let g3 = h3 + c;
  c = (g3 / LIMB) | 0;
  g3 -= c * LIMB;
  let g4 = h4 + c;
  c = (g4 / LIMB) | 0;
  g4 -= c * LIMB;
  let g5 = h5 + c;
  c = (g5 / LIMB) | 0;
  g5 -= c * LIMB;
  let g6 = h6 + c;
  c = (g6 / LIMB) | 0;
  g6 -= c * LIMB;
  let g7 = h7 + c;
  c = (g7 / LIMB) | 0;
  g7 -= c * LIMB;
  let g8 = h8 + c;
  c = (g8 / LIMB) | 0;
  g8 -= c * LIMB;
  let g9 = h9 + c;
  c = (g9 / LIMB) | 0;
  g9 -= c * LIMB;
  if (c > 0) {
    h0 = g0;
    h1 = g1;
    h2 = g2;
    h3 = g3;
    h4 = g4;
    h5 = g5;
    h6 = g6;
    h7 = g7;
    h8 = g8;
    h9 = g9;
  }

  // The low 128 bits as eight 16-bit words, plus s (key bytes 16-31) mod 2^128.
  let sum = 0;
  const add = (word, i) => {
    sum = (word & 0xffff) + (key[16 + 2 * i] | (key[17 + 2 * i] << 8)) + (sum >>> 16);
    out[outOffset + 2 * i] = sum & 0xff;
    out[outOffset + 2 * i + 1] = (sum >>> 8) & 0xff;
  };
  add(h0 | (h1 << 13), 0);
  add((h1 >>> 3) | (h2 << 10), 1);
  add((h2 >>> 6) | (h3 << 7), 2);
  add((h3 >>> 9) | (h4 << 4), 3);
  add((h4 >>> 12) | (h5 << 1) | (h6 << 14), 4);
  add((h6 >>> 2) | (h7 << 11), 5);
  add((h7 >>> 5) | (h8 << 8), 6);
  add((h8 >>> 8) | (h9 << 5), 7);
}
