import net from 'node:net';

// Options every relay socket shares. Half-close is passed on (see bridge.js),
// Nagle is off, so small records are not delayed, and TCP keep-alive after
// 15 s of silence (shadowsocks-rust's default) finds peers that vanished
// without a FIN or RST.
//
// Node's stream buffers stay at 16 KB: how much a relay queues toward a
// slow socket is decided in write-queues.js, and what it reads ahead of a
// paused consumer is this mark plus one 64 KB read.
const STREAM_MARK_BYTES = 16 * 1024;
const KEEP_ALIVE_MS = 15_000;

export const SERVER_SOCKET_OPTIONS = {
  allowHalfOpen: true,
  noDelay: true,
  highWaterMark: STREAM_MARK_BYTES,
  keepAlive: true,
  keepAliveInitialDelay: KEEP_ALIVE_MS,
};

const connectOptions = ({ host, port }) => ({
  host,
  port,
  allowHalfOpen: true,
  noDelay: true,
  readableHighWaterMark: STREAM_MARK_BYTES,
  writableHighWaterMark: STREAM_MARK_BYTES,
  keepAlive: true,
  keepAliveInitialDelay: KEEP_ALIVE_MS,
});

// A connection out (to the relay server, to a target). What is written
// before it connects (an address header, then the first bytes after it)
// leaves in one write once it does, not in one write and one TCP segment
// each, which the peer would then read one by one.
export function connectCorked(endpoint) {
  const socket = net.connect(connectOptions(endpoint));
  socket.cork();
  socket.once('connect', () => socket.uncork());
  return socket;
}
