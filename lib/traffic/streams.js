import { WRITE_SIZE } from './protocol.js';

// The two halves of a measured transfer, used by whichever end sends (the
// sender, or the sink with --reverse) and whichever receives.

const CHUNK = Buffer.alloc(WRITE_SIZE);
// A socket whose peer keeps up never says "wait for drain"; after this many
// writes in a row it yields, so the other streams and the stop timer run.
const WRITES_PER_TURN = 16;

const now = () => process.hrtime.bigint();
const secondsBetween = (from, to) => Number(to - from) / 1e9;

// Writes on every socket for `seconds`, respecting back-pressure. Resolves
// with the bytes handed to each socket and the seconds that took, measured.
// A write accepted before the deadline counts even if part of it still sits
// in Node's queue: it is sent after, and the receiver waits for all of it.
// With `rate` (bits per second, all sockets together) each socket keeps to
// its share, as iperf3 -b paces each stream: a socket ahead of its
// schedule waits until its next write is due.
export function sendFor(sockets, seconds, signal, { rate = null } = {}) {
  return new Promise((resolve, reject) => {
    const bytes = sockets.map(() => 0);
    const started = now();
    const deadline = started + BigInt(Math.round(seconds * 1e9));
    let stopped = false;
    const pacers = sockets.map(() => null);
    const writers = sockets.map((socket, index) => {
      const write = () => {
        for (let turn = 0; turn < WRITES_PER_TURN; turn += 1) {
          if (stopped) return;
          if (now() >= deadline) {
            finish();
            return;
          }
          if (rate !== null) {
            const dueInSeconds = (bytes[index] * 8) / (rate / sockets.length) - secondsBetween(started, now());
            if (dueInSeconds > 0) {
              pacers[index] = setTimeout(write, Math.max(1, Math.ceil(dueInSeconds * 1000)));
              return;
            }
          }
          bytes[index] += CHUNK.length;
          if (!socket.write(CHUNK)) return;
        }
        setImmediate(write);
      };
      socket.on('drain', write);
      return write;
    });
    const timer = setTimeout(() => finish(), seconds * 1000);
    const onAbort = () => finish(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    function finish(error) {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      pacers.forEach((pacer) => clearTimeout(pacer));
      signal.removeEventListener('abort', onAbort);
      sockets.forEach((socket, index) => socket.off('drain', writers[index]));
      if (error) reject(error);
      else resolve({ bytes, seconds: secondsBetween(started, now()) });
    }
    if (signal.aborted) onAbort();
    else writers.forEach((write) => write());
  });
}

// Counts what arrives on `count` streams and when the last byte of each
// came, from a start the caller sets (or the first byte, if that is
// earlier). drained() waits for every stream to reach the bytes its sender
// reported; bytes lost on the way end it after `idleMs` without progress.
export function createReceiver(count) {
  const streams = Array.from({ length: count }, () => ({ bytes: 0, lastAt: null }));
  let startedAt = null;
  let progress = null;
  return {
    start() {
      startedAt ??= now();
    },
    add(index, length) {
      const stream = streams[index];
      stream.bytes += length;
      stream.lastAt = now();
      startedAt ??= stream.lastAt;
      progress?.();
    },
    drained(expected, { idleMs, limitMs, signal }) {
      return new Promise((resolve, reject) => {
        const complete = () => streams.every((stream, index) => stream.bytes >= expected[index]);
        let idle = null;
        const limit = setTimeout(() => finish(), limitMs);
        const onAbort = () => finish(signal.reason);
        function finish(error) {
          clearTimeout(idle);
          clearTimeout(limit);
          signal.removeEventListener('abort', onAbort);
          progress = null;
          if (error) reject(error);
          else resolve();
        }
        progress = () => {
          if (complete()) {
            finish();
            return;
          }
          clearTimeout(idle);
          idle = setTimeout(() => finish(), idleMs);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        if (signal.aborted) onAbort();
        else progress();
      });
    },
    // Per stream: bytes, and seconds from the start to its last byte (0 for
    // a stream that received nothing).
    figures() {
      return streams.map(({ bytes, lastAt }) => ({
        bytes,
        seconds: lastAt === null ? 0 : secondsBetween(startedAt, lastAt),
      }));
    },
  };
}
