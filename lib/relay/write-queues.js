// How much a relay queues toward a socket that does not keep up before it
// stops reading the other side.
//
// A 1 MB queue makes a busy flow 10% faster than a small one: a 64 KB read
// fits, and reading goes on while the kernel takes the last batch
// (docs/performance.md). But a queue is memory, and a target that never
// reads keeps its queue full. So the queues of one relay share a budget:
// past Node's 16 KB mark, a queue may grow while all of them together hold
// at most 8 MB, each at most min(1 MB, 8 MB / queues past the mark). One
// flow, or a benchmark's 8, keep the 1 MB fast path; a crowd of stalled
// flows costs 8 MB, plus one read's output and one read ahead a flow
// (docs/security.md).
const MARK_BYTES = 16 * 1024;
const MOST_BYTES = 1 << 20;
const BUDGET_BYTES = 8 << 20;

export function createWriteQueues({ budget = BUDGET_BYTES, most = MOST_BYTES } = {}) {
  // Queues past Node's mark, with their length when last seen: their
  // socket has promised a 'drain' (or will close), which takes them out.
  const holding = new Map();
  let total = 0;
  const forget = (socket) => {
    total -= holding.get(socket) ?? 0;
    holding.delete(socket);
  };
  return {
    // True when the reader feeding `socket` should pause until its 'drain'.
    full(socket) {
      const queued = socket.writableLength;
      if (queued < MARK_BYTES) return false;
      if (!holding.has(socket)) socket.once('drain', () => forget(socket));
      total += queued - (holding.get(socket) ?? 0);
      holding.set(socket, queued);
      return total > budget || queued >= Math.max(MARK_BYTES, Math.min(most, budget / holding.size));
    },
    // After 'close': a socket that will never drain holds no queue.
    release: forget,
  };
}
