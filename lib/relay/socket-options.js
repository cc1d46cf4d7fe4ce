// Options every relay socket shares. Half-close is passed on (see bridge.js)
// and Nagle is off, so small records are not delayed.
//
// The write queue: Node's default high-water mark is 16 KB, less than what
// one 64 KB read becomes, so every read paused the reading side until the
// write drained, and the relay alternated between reading and writing in
// small steps. At 1 MB a read's output fits, reading goes on while the
// kernel takes the last batch, and writes leave in larger batches: 10% more
// bitrate and 10% less CPU per GB for the aes-256-gcm pair (6 interleaved
// runs; 128 and 256 KB gained less, 4 MB no more; docs/performance.md). It
// bounds what one socket may queue before back-pressure, not what it uses.
const WRITE_QUEUE_BYTES = 1 << 20;

export const SERVER_SOCKET_OPTIONS = { allowHalfOpen: true, noDelay: true, highWaterMark: WRITE_QUEUE_BYTES };

export const connectOptions = ({ host, port }) => ({
  host,
  port,
  allowHalfOpen: true,
  noDelay: true,
  writableHighWaterMark: WRITE_QUEUE_BYTES,
});
