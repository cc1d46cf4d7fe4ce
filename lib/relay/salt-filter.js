import crypto, { createHash, randomBytes } from 'node:crypto';

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
// The bit positions come from SHA-512 under a key drawn at start, so a
// client that chooses its salts cannot aim them at chosen bits. One digest
// gives 16 positions, so a filter uses at most 16 and takes the bits its
// rate needs at that count: the server's would use 20, the client's 50,
// and 16 cost them 1.02x and 1.8x the bits (3.6 MB and 160 KB in all).
const MAX_HASHES = 16;
// One-shot where Node has crypto.hash (20.12): a Hash object per salt is one
// more native object for the collector to finalise.
const sha512 = crypto.hash
  ? (data) => crypto.hash('sha512', data, 'buffer')
  : (data) => createHash('sha512').update(data).digest();

export const SERVER_FILTER = { entries: 1_000_000, falsePositiveRate: 1e-6 };
export const CLIENT_FILTER = { entries: 10_000, falsePositiveRate: 1e-15 };

export function createSaltFilter({ entries, falsePositiveRate }) {
  const perFilter = Math.ceil(entries / 2);
  const optimalBits = (-perFilter * Math.log(falsePositiveRate)) / Math.LN2 ** 2;
  const hashes = Math.min(MAX_HASHES, Math.max(1, Math.round((optimalBits / perFilter) * Math.LN2)));
  // m = -k n / ln(1 - p^(1/k)): the bits at which k hashes reach rate p.
  const bits = Math.ceil((-hashes * perFilter) / Math.log(1 - falsePositiveRate ** (1 / hashes)));
  const words = Math.ceil(bits / 32);
  const filters = [new Uint32Array(words), new Uint32Array(words)];
  // The key, then the salt (at most 32 bytes) of the call under way.
  const input = Buffer.alloc(64);
  randomBytes(32).copy(input);
  let current = 0;
  let added = 0;
  let refused = 0;

  // One 32-bit word of the digest per position, each independent of
  // the others. Positions derived from two words (h1 + i * h2) were not:
  // with an even bit count a step of 0 or bits / 2 set one or two bits,
  // and progressions with a shared step overlap, so a filter of 1,000
  // entries at 1e-6 refused fresh salts at 6.5e-5 and, refusing a salt as
  // seen without recording it, forgot one in 30 runs of its test. It is one
  // hash per connection, not per byte.
  const positions = (salt) => {
    let keyed;
    if (salt.length <= 32) {
      salt.copy(input, 32);
      keyed = input.subarray(0, 32 + salt.length);
    } else keyed = Buffer.concat([input.subarray(0, 32), salt]);
    const digest = sha512(keyed);
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
