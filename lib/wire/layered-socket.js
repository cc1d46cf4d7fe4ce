import { Duplex } from 'node:stream';
import { isProtocolError } from './protocol-error.js';

const NOTHING = Buffer.alloc(0);
// How long the socket under a closed layer may take to send what it holds
// (a refusal, the protocol's end) before it is destroyed, as the relay's
// LINGER_MS.
const LINGER_MS = 5000;

// A socket-like stream over another (TCP, TLS) that a transport frames: it
// opens with a handshake, then turns what the relay writes into the wire's
// frames and the wire's frames back into bytes. It stands in for a
// net.Socket where the relay reads, writes, pauses, half-closes, resets
// and times out a connection (relay/bridge.js, relay/reset-socket.js), so
// a transport is one more layer the chain composes, never a branch in the
// relay.
//
// `codec` is one connection's, with `io` the layer's side of it:
//   start(io): the handshake's first move (a client's request);
//   read(chunk, io): bytes from the wire; the codec calls
//     io.deliver(bytes) for what it carried, io.send(buffers) to answer on
//     the wire (a 101, a pong), io.open() once the handshake is done (the
//     relay's writes flow from then, 'connect' is emitted) and
//     io.peerEnded() at the peer's end of stream (a Close frame); it
//     throws a protocol error for bytes that break its protocol, which
//     destroys the layer with it: reset, or, for an error carrying
//     `answer` (an HTTP refusal), that answer and then a FIN;
//   ended(): the wire's FIN; throws a protocol error when it came inside
//     a frame or without the protocol's end;
//   frame(buffers) -> buffers: what the relay wrote, as the wire's bytes;
//   close() -> buffers: what ends the sending side before its FIN.
// Writes before the handshake is done wait in the layer (its
// writableLength counts them, so the relay stops reading on), as do writes
// while the socket under it is over its mark.
export function layeredSocket(inner, codec) {
  let opened = false;
  let pushedEnd = false;
  let waiting = null;
  let sentEnd = false;
  let resetting = false;

  const io = {
    deliver(bytes) {
      if (!layer.push(bytes)) inner.pause();
    },
    send(buffers) {
      if (inner.writableEnded) return;
      for (const buffer of buffers) inner.write(buffer);
    },
    open() {
      opened = true;
      layer.emit('connect');
      const next = waiting;
      waiting = null;
      next?.();
    },
    peerEnded() {
      if (pushedEnd) return;
      pushedEnd = true;
      layer.push(null);
    },
  };

  // Until the handshake is done, a write or the end waits its turn.
  const whenOpen = (run) => {
    if (opened) return run();
    waiting = run;
  };

  const layer = new Duplex({
    allowHalfOpen: true,
    readableHighWaterMark: inner.readableHighWaterMark,
    writableHighWaterMark: inner.writableHighWaterMark,
    read() {
      inner.resume();
    },
    writev(chunks, callback) {
      whenOpen(() => {
        const buffers = chunks.map(({ chunk }) => chunk).filter((chunk) => chunk.length > 0);
        // An empty write asks whether the socket was reset (bridge.js):
        // it goes to the socket under it as it is, framing nothing.
        if (buffers.length === 0) return inner.write(NOTHING, callback);
        writeCorked(inner, codec.frame(buffers), callback);
      });
    },
    // Finished at once: an end before the handshake is done goes out once
    // it is, and a reset meanwhile (which waits for a socket's shutdown to
    // finish, reset-socket.js) is not held up by it.
    final(callback) {
      whenOpen(() => {
        sentEnd = true;
        io.send(codec.close());
        inner.end();
      });
      callback();
    },
    destroy(error, callback) {
      if (inner.destroyed || resetting) return callback(error);
      if (error?.answer) {
        inner.end(error.answer);
        setTimeout(() => inner.destroy(), LINGER_MS).unref();
      } else if (error) {
        resetInner();
      } else {
        // A clean close ends the stream as the protocol ends it, and what
        // is queued still goes out.
        if (opened && !sentEnd) io.send(codec.close());
        sentEnd = true;
        if (!inner.writableEnded) inner.end();
        if (inner.writableFinished) inner.destroy();
        else inner.once('finish', () => inner.destroy());
        setTimeout(() => inner.destroy(), LINGER_MS).unref();
      }
      callback(error);
    },
  });

  // As relay/reset-socket.js resets a socket: libuv cannot reset one whose
  // FIN is being sent (the descriptor would stay open for good), so that
  // one is reset once the FIN is out.
  const resetInner = () => {
    if (inner.destroyed) return;
    if (inner.writableEnded && !inner.writableFinished && inner.writableLength === 0) {
      inner.once('finish', resetInner);
      setTimeout(() => inner.destroy(), LINGER_MS).unref();
      return;
    }
    if (typeof inner.resetAndDestroy === 'function') inner.resetAndDestroy();
    else inner.destroy();
  };

  const fail = (error) => {
    if (!isProtocolError(error)) throw error;
    layer.destroy(error);
  };
  inner.on('data', (chunk) => {
    // A refused connection is read no further while its answer goes out.
    if (layer.destroyed) return;
    try {
      codec.read(chunk, io);
    } catch (error) {
      fail(error);
    }
  });
  inner.on('end', () => {
    try {
      codec.ended();
    } catch (error) {
      return fail(error);
    }
    io.peerEnded();
  });
  inner.on('error', (error) => layer.destroy(error));
  // What was delivered before the socket under it closed is still read:
  // the layer closes once its reader has had the end.
  inner.on('close', () => {
    if (layer.destroyed) return;
    if (pushedEnd && !layer.readableEnded) layer.once('end', () => layer.destroy());
    else layer.destroy();
  });

  Object.defineProperties(layer, {
    ...addressesOf(inner),
    setTimeout: {
      value(ms, callback) {
        inner.setTimeout(ms, callback);
        return layer;
      },
    },
    setNoDelay: { value: (noDelay) => (inner.setNoDelay(noDelay), layer) },
    setKeepAlive: { value: (enable, delay) => (inner.setKeepAlive(enable, delay), layer) },
    // A reset, as for a socket: the one under it sends it.
    resetAndDestroy: {
      value() {
        resetting = true;
        resetInner();
        layer.destroy();
        return layer;
      },
    },
  });
  codec.start(io);
  return layer;
}

// A layer's addresses, for the relay's logs and checks: those of the
// socket under it, as property descriptors.
export const addressesOf = (inner) => ({
  remoteAddress: { get: () => inner.remoteAddress },
  remotePort: { get: () => inner.remotePort },
  localAddress: { get: () => inner.localAddress },
  localPort: { get: () => inner.localPort },
});

// Writes `buffers` to `stream` as one corked batch (one writev), then calls
// back at once, or at its 'drain' when the batch filled its queue: the
// backpressure a layer passes on to the relay writing into it.
export function writeCorked(stream, buffers, callback) {
  let below = true;
  stream.cork();
  for (const buffer of buffers) below = stream.write(buffer);
  stream.uncork();
  if (below) callback();
  else stream.once('drain', () => callback());
}
