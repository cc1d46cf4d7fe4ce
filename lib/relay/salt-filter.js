import { createHash, randomBytes } from 'node:crypto';

// Remembers the salts (AEAD) and IVs (stream ciphers) a relay has seen, in
// both directions, so that a captured connection sent again, or a server's
// own output fed back to it, is refused before it reaches a target.
//
// A pair of Bloom filters used as a ring, as shadowsocks-libev's ppbloom and
// shadowsocks-rust's PingPongBloom do, with their sizes: a server remembers
// 1,000,000 salts at a false-positive rate of 1e-6 (two filters of 500,000,
// 1.8 MB each), a client 10,000 at 1e-15. When the current filter is full,
// the older one is cleared and becomes current, so the most recent 500,000
// to 1,000,000 salts are always remembered and memory never grows.
//
// Not a time-bounded cache: SIP004 and stream connections carry no
// timestamp, so a replay may come at any time after its capture, and only
// a memory of salts bounded by count (not age) can refuse it. (A cache that
// forgets after N seconds fits protocols that refuse anything older than N
// seconds, as Shadowsocks 2022 does.)
//
// The bit positions come from SHAKE256 under a key drawn at start, so a
// client that chooses its salts cannot aim them at chosen bits.
export const SERVER_FILTER = { entries: 1_000_000, falsePositiveRate: 1e-6 };
export const CLIENT_FILTER = { entries: 10_000, falsePositiveRate: 1e-15 };

export function createSaltFilter({ entries, falsePositiveRate }) {
  const perFilter = Math.ceil(entries / 2);
  const bits = Math.ceil((-perFilter * Math.log(falsePositiveRate)) / Math.LN2 ** 2);
  const hashes = Math.max(1, Math.round((bits / perFilter) * Math.LN2));
  const words = Math.ceil(bits / 32);
  const filters = [new Uint32Array(words), new Uint32Array(words)];
  const hashKey = randomBytes(32);
  let current = 0;
  let added = 0;
  let refused = 0;

  // One 32-bit word of SHAKE256 output per position, each independent of
  // the others. Positions derived from two words (h1 + i * h2) were not:
  // with an even bit count a step of 0 or bits / 2 set one or two bits,
  // and progressions with a shared step overlap, so a filter of 1,000
  // entries at 1e-6 refused fresh salts at 6.5e-5 and, refusing a salt as
  // seen without recording it, forgot one in 30 runs of its test. It is one
  // hash per connection, not per byte.
  const positions = (salt) => {
    const digest = createHash('shake256', { outputLength: 4 * hashes })
      .update(hashKey)
      .update(salt)
      .digest();
    const out = new Array(hashes);
    for (let i = 0; i < hashes; i++) out[i] = digest.readUInt32LE(4 * i) % bits;
    return out;
  };
  const holds = (filter, at) => at.every((bit) => (filter[bit >>> 5] & (1 << (bit & 31))) !== 0);

  return {
    // Returns false (and counts a refusal) when `salt` was seen before;
    // otherwise remembers it and returns true.
    add(salt) {
      const at = positions(salt);
      if (holds(filters[0], at) || holds(filters[1], at)) {
        refused += 1;
        return false;
      }
      if (added >= perFilter) {
        current ^= 1;
        filters[current].fill(0);
        added = 0;
      }
      const filter = filters[current];
      for (const bit of at) filter[bit >>> 5] |= 1 << (bit & 31);
      added += 1;
      return true;
    },
    get refused() {
      return refused;
    },
  };
}
