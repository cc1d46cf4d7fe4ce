// How much a relay queues toward a socket that does not keep up before it
// stops reading the other side.
//
// A 1 MB queue makes a busy flow 10% faster than a small one: a 64 KB read
// fits, and reading goes on while the kernel takes the last batch
// (docs/performance.md). But a queue is memory, and a target that never
// reads keeps its queue full: at 1 MB a flow (and 1 MB of read-ahead), 400
// such flows held 900 MB. So a queue pauses its reader at Node's 16 KB mark,
// and only the first LARGE_QUEUES queues to fill at a time may grow to 1 MB;
// a queue leaves that set when it drains. A benchmark's few flows keep the
// fast path; a crowd of stalled flows costs LARGE_QUEUES MB, plus about
// 160 KB a flow (a queue of up to one read's output past the mark, and the
// 64 KB read Node takes ahead of a paused reader): docs/security.md.
const SMALL_BYTES = 16 * 1024;
const LARGE_BYTES = 1 << 20;
const LARGE_QUEUES = 16;

export function createWriteQueues({ small = SMALL_BYTES, large = LARGE_BYTES, largeQueues = LARGE_QUEUES } = {}) {
  const holdingLarge = new Set();
  return {
    // True when the reader feeding `socket` should pause until its 'drain'.
    full(socket) {
      const queued = socket.writableLength;
      if (queued < small) return false;
      if (!holdingLarge.has(socket)) {
        if (holdingLarge.size >= largeQueues) return true;
        holdingLarge.add(socket);
      }
      return queued >= large;
    },
    // After 'drain' or 'close': the socket no longer holds a large queue.
    release(socket) {
      holdingLarge.delete(socket);
    },
  };
}
