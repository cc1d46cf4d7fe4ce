// The xorshift128+ generator ShadowsocksR's auth_chain draws padding
// lengths and positions from, seeded from the last frame's HMAC so both
// ends draw the same numbers. 64-bit arithmetic, in BigInt.
const MASK64 = (1n << 64n) - 1n;
const MASK41 = (1n << 41n) - 1n; // keeps x << 23 inside 64 bits

function createXorshift128plus(v0, v1) {
  return {
    next() {
      let x = v0;
      const y = v1;
      v0 = y;
      x ^= (x & MASK41) << 23n;
      x ^= y ^ (x >> 17n) ^ (y >> 26n);
      v1 = x;
      return (x + y) & MASK64;
    },
  };
}

// init_from_bin: the first 16 bytes (zero-filled) as two LE 64-bit words.
export function fromBytes(bytes) {
  const seed = Buffer.alloc(16);
  bytes.copy(seed, 0, 0, Math.min(16, bytes.length));
  return createXorshift128plus(seed.readBigUInt64LE(0), seed.readBigUInt64LE(8));
}

// init_from_bin_len: the hash with its first two bytes replaced by the
// frame's length (LE), then four draws thrown away.
export function fromHashAndLength(hash, length) {
  const seed = Buffer.alloc(16);
  hash.copy(seed, 0, 0, 16);
  seed.writeUInt16LE(length, 0);
  const generator = createXorshift128plus(seed.readBigUInt64LE(0), seed.readBigUInt64LE(8));
  for (let i = 0; i < 4; i++) generator.next();
  return generator;
}
