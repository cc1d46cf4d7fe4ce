// A UDP relay's associations (one per peer: a client's address, or a local
// sender's): bounded in count, forgotten after `timeoutMs` without a
// datagram either way. A full table refuses a new association rather than
// evicting one that is in use, so a flood of new senders cannot cut off the
// ones already carried. `close(value)` releases what an association holds.
// The idle time is shadowsocks-rust's default (5 minutes). It keeps every
// association that long, unbounded in count by default, and
// shadowsocks-libev's server 512, evicting the oldest; here each holds a
// socket of about 7 KB of native memory, so 1,024 bound a flood of senders
// to some 10 MB while leaving room for any benchmark (iperf3 -P 128 is 128).
export const DEFAULT_UDP_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_ASSOCIATIONS = 1024;

export function createAssociations({ timeoutMs, maxAssociations, close }) {
  const entries = new Map();
  // Swept a few times per timeout, so an idle association lives at most
  // 1.25 timeouts; the timer never keeps the process alive.
  const sweep = setInterval(
    () => {
      const oldest = performance.now() - timeoutMs;
      for (const [key, entry] of entries) {
        if (entry.seen < oldest) remove(key, entry);
      }
    },
    Math.max(50, timeoutMs / 4),
  );
  sweep.unref();
  const remove = (key, entry) => {
    entries.delete(key);
    close(entry.value);
  };
  return {
    // The association's value, marked as in use now; undefined when none.
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entry.seen = performance.now();
      return entry.value;
    },
    touch(key) {
      const entry = entries.get(key);
      if (entry) entry.seen = performance.now();
    },
    get full() {
      return entries.size >= maxAssociations;
    },
    add(key, value) {
      entries.set(key, { value, seen: performance.now() });
      return value;
    },
    delete(key) {
      const entry = entries.get(key);
      if (entry) remove(key, entry);
    },
    get size() {
      return entries.size;
    },
    closeAll() {
      clearInterval(sweep);
      for (const [key, entry] of entries) remove(key, entry);
    },
  };
}
