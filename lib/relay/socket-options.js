import net from 'node:net';
import { createSocketList } from './socket-list.js';

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
  highWaterMark: STREAM_MARK_BYTES,
};

// Nagle off and keep-alive on for every socket `server` accepts. Linux
// copies a listening socket's options into each connection it accepts, so
// they are set once, on the listener, instead of five setsockopt calls per
// connection (TCP_NODELAY, SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL,
// TCP_KEEPCNT): strace counted them as the one kind of system call a relay
// made per connection beyond a bare accept-connect-pipe's. Node has no
// public call for a listener's options; the handle's own setNoDelay and
// setKeepAlive (what Socket's call) are there on Node 20, 22 and 24.
// Without them, or off Linux, each accepted socket gets the options itself.
// Called once `server` listens: a connection the kernel completed in the
// microseconds before would lack them, and nothing reaches a relay before
// it says it listens.
export function setAcceptedSocketOptions(server) {
  const handle = server._handle;
  if (
    process.platform === 'linux' &&
    typeof handle?.setNoDelay === 'function' &&
    typeof handle.setKeepAlive === 'function' &&
    handle.setNoDelay(true) === 0 &&
    handle.setKeepAlive(true, KEEP_ALIVE_MS / 1000) === 0
  ) {
    return;
  }
  server.prependListener('connection', (socket) => socket.setNoDelay(true).setKeepAlive(true, KEEP_ALIVE_MS));
}

const connectOptions = ({ host, port }) => ({
  host,
  port,
  allowHalfOpen: true,
  noDelay: true,
  readableHighWaterMark: STREAM_MARK_BYTES,
  writableHighWaterMark: STREAM_MARK_BYTES,
});

// Keep-alive on a dialled socket once it has lived through a sweep, every
// KEEP_ALIVE_SWEEP_MS: its four setsockopt calls are then paid only by the
// connections that live long enough to need them, not by every short
// request, while a connection idle from its start still sends its first
// probe within 15 + 5 s.
const KEEP_ALIVE_SWEEP_MS = 5_000;
const awaitingKeepAlive = createSocketList();
let sweep = null;

function keepAliveOnceSwept(socket) {
  const node = awaitingKeepAlive.add(socket);
  socket.once('close', () => awaitingKeepAlive.remove(node));
  sweep ??= setInterval(() => {
    for (const waiting of awaitingKeepAlive.items()) waiting.setKeepAlive(true, KEEP_ALIVE_MS);
    awaitingKeepAlive.clear();
  }, KEEP_ALIVE_SWEEP_MS).unref();
}

// A connection out (to the relay server, to a target). What is written
// before it connects (an address header, then the first bytes after it)
// leaves in one write once it does, not in one write and one TCP segment
// each, which the peer would then read one by one.
export function connectCorked(endpoint) {
  const socket = net.connect(connectOptions(endpoint));
  socket.cork();
  socket.once('connect', () => socket.uncork());
  keepAliveOnceSwept(socket);
  return socket;
}
