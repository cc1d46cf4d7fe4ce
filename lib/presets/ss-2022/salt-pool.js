// SIP022 3.1.4: every incoming salt is kept for 60 seconds, and a salt
// already in the pool is a replay. Exact (a Map, never a Bloom filter, which
// the spec forbids for its false positives). Every entry lives equally long,
// so insertion order is expiry order and expired entries leave from the
// front; the pool holds at most one entry per connection of the last minute.
const SALT_LIFETIME_MS = 60_000;

export function createSaltPool({ lifetimeMs = SALT_LIFETIME_MS, now = () => performance.now() } = {}) {
  const expiries = new Map();
  return {
    // Returns false when the salt was seen within the lifetime.
    add(salt) {
      const at = now();
      for (const [seen, expiry] of expiries) {
        if (expiry > at) break;
        expiries.delete(seen);
      }
      const key = salt.toString('base64');
      if (expiries.has(key)) return false;
      expiries.set(key, at + lifetimeMs);
      return true;
    },
    get size() {
      return expiries.size;
    },
  };
}
