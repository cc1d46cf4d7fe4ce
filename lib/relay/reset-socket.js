// How long a socket may take to finish what it was doing (connect, or
// flush after the other side closed cleanly) before it is destroyed.
export const LINGER_MS = 5000;

// Ends a socket with a TCP reset, so its peer sees an error, not an end.
//
// libuv refuses to reset a socket whose shutdown (our FIN) is under way
// (uv_tcp_close_reset: EINVAL), and Node, having already marked the handle
// closing, never closes it: the descriptor stays open for the life of the
// process, 'close' never comes, and at exit Node's teardown waits for that
// handle forever, spinning a core (Node 20, 22 and 24;
// test/relay-reset-socket.test.js). A socket ended with nothing left to
// write has its shutdown under way, so it is reset once the shutdown is
// done. One still connecting is reset once connected, and destroyed after
// LINGER_MS if it never connects.
export function resetSocket(socket) {
  if (socket.destroyed) return;
  if (socket.connecting) {
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('connect', () => resetSocket(socket));
    return;
  }
  if (shutdownUnderWay(socket)) {
    socket.once('finish', () => resetSocket(socket));
    return;
  }
  socket.resetAndDestroy();
}

// end() was called and every write is done, so Node has asked libuv for the
// shutdown (it asks only once the writes are out), and it has not finished.
const shutdownUnderWay = (socket) => socket.writableEnded && !socket.writableFinished && socket.writableLength === 0;
