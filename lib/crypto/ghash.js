// Multiplication by the GCM hash key H in GF(2^128) (NIST SP 800-38D, 6.3),
// for the short records where a node:crypto GCM object would cost more than
// the GHASH itself. Shoup's method: a table of n·H per key, then one
// shift-and-add per nibble (16 entries) or, once a key has been used a
// while, per byte (256 entries) of the other factor.
//
// GCM's bit order: the first bit of a block is the coefficient of x^0, so
// multiplying by x shifts the block right by one bit, and x^128 folds back as
// R = 0xE1 || 0^120. Blocks are four big-endian 32-bit words here.
//
// Table lookups depend on H: not constant-time. Fine for a benchmark relay
// on loopback, and said here so nobody mistakes it for a hardened one.

// x^128..x^131 folded back: what the four bits shifted out of the low end
// add to the top 16 bits, for each value of those bits.
const REDUCE = Int32Array.from(
  [
    0x0000, 0x1c20, 0x3840, 0x2460, 0x7080, 0x6ca0, 0x48c0, 0x54e0, 0xe100, 0xfd20, 0xd940, 0xc560, 0x9180, 0x8da0,
    0xa9c0, 0xb5e0,
  ],
  (v) => v << 16,
);

// x^128..x^135 folded back, for the 8-bit steps: what the byte shifted out
// of the low end adds to the top 16 bits. Each bit of the byte, shifted the
// rest of the way one bit at a time, adds R = 0xE1 || 0^120 where it falls
// off; nothing of it reaches past the first word.
const REDUCE8 = Int32Array.from({ length: 256 }, (_, byte) => {
  let top = 0;
  let low = byte;
  for (let bit = 0; bit < 8; bit++) {
    const carry = low & 1;
    low >>>= 1;
    top = (top >>> 1) ^ (carry ? 0xe1000000 | 0 : 0);
  }
  return top;
});

// After this many products by one key, its 8-bit table is built: 4 KB and
// about 2 µs, which halves the steps of every product after it. A key that
// seals a connection's one request never gets there; one that carries a
// kept-alive connection's tenth small request has.
const UPGRADE_AFTER = 64;

// The product of the last multiply (read at once, before the next call).
const z = new Int32Array(4);

// table[4n .. 4n+3] = n·H for n below 2^bits, from the powers of two: the
// index's high bit is the lowest power of x (8 -> H, 4 -> H·x, ... for 4
// bits; 0x80 -> H ... 0x01 -> H·x^7 for 8). H is given as four words.
function productTable(v0, v1, v2, v3, bits) {
  const size = 1 << bits;
  const table = new Int32Array(4 * size);
  for (let n = size >> 1; n >= 1; n >>= 1) {
    table[4 * n] = v0;
    table[4 * n + 1] = v1;
    table[4 * n + 2] = v2;
    table[4 * n + 3] = v3;
    const carry = v3 & 1;
    v3 = (v3 >>> 1) | (v2 << 31);
    v2 = (v2 >>> 1) | (v1 << 31);
    v1 = (v1 >>> 1) | (v0 << 31);
    v0 = (v0 >>> 1) ^ (carry ? 0xe1000000 | 0 : 0);
  }
  for (let high = 2; high < size; high <<= 1) {
    for (let low = 1; low < high; low++) {
      for (let w = 0; w < 4; w++) table[4 * (high + low) + w] = table[4 * high + w] ^ table[4 * low + w];
    }
  }
  return table;
}

// h: the 16-byte hash key E(K, 0^128). Returns multiply(x0, x1, x2, x3),
// which leaves X·H in the returned Int32Array(4), shared by every key.
export function createGhashMultiplier(h) {
  // Only the tables are kept (not h, a view of a bigger buffer): the
  // 4-bit table's entry 8 is H itself, which the 8-bit one starts from.
  const table = productTable(h.readInt32BE(0), h.readInt32BE(4), h.readInt32BE(8), h.readInt32BE(12), 4);
  let table8 = null;
  let uses = 0;

  return function multiply(x0, x1, x2, x3) {
    if (table8 === null && ++uses > UPGRADE_AFTER) table8 = productTable(table[32], table[33], table[34], table[35], 8);
    let z0 = 0,
      z1 = 0,
      z2 = 0,
      z3 = 0;
    // Horner's rule from the last nibble or byte (highest powers) to the
    // first; trailing zero words leave z at zero, so start after them (a
    // 2-byte record's first block is three of them).
    let w = 3;
    while (w > 0 && (w === 3 ? x3 : w === 2 ? x2 : x1) === 0) w--;
    const bits = table8 === null ? 4 : 8;
    const products = table8 ?? table;
    const reduce = table8 === null ? REDUCE : REDUCE8;
    const mask = (1 << bits) - 1;
    const spill = 32 - bits;
    for (; w >= 0; w--) {
      const word = w === 3 ? x3 : w === 2 ? x2 : w === 1 ? x1 : x0;
      for (let shift = 0; shift < 32; shift += bits) {
        const out = z3 & mask;
        z3 = (z3 >>> bits) | (z2 << spill);
        z2 = (z2 >>> bits) | (z1 << spill);
        z1 = (z1 >>> bits) | (z0 << spill);
        z0 = (z0 >>> bits) ^ reduce[out];
        const n = 4 * ((word >>> shift) & mask);
        z0 ^= products[n];
        z1 ^= products[n + 1];
        z2 ^= products[n + 2];
        z3 ^= products[n + 3];
      }
    }
    z[0] = z0;
    z[1] = z1;
    z[2] = z2;
    z[3] = z3;
    return z;
  };
}
