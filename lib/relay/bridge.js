import { isProtocolError } from '../wire/protocol-error.js';
import { createSocketList } from './socket-list.js';
import { LINGER_MS, resetSocket } from './reset-socket.js';

// How often a socket that has sent its FIN is checked for a later reset.
const HALF_CLOSED_CHECK_MS = 500;
const NOTHING = Buffer.alloc(0);
// How much a transform may hold back (a client waiting for the server's
// handshake) before its reading side is paused until it lets go: as much
// as one write queue may hold (write-queues.js).
const HOLD_MARK_BYTES = 1 << 20;
const HOLDS_NOTHING = { held: () => 0, whenReleased: (callback) => callback() };

// A socket that sent its FIN is no longer read, so a reset it sends
// afterwards would go unnoticed while the other side stays silent, and
// both sockets would be held until the idle timeout. An empty write
// reports that reset (EPIPE/ECONNRESET) and puts nothing on the wire.
// One timer checks every such socket of the process, not one per socket:
// each connection half-closes two, most for a moment before they close.
const halfClosed = createSocketList();
let halfClosedCheck = null;
function checkHalfClosed() {
  for (const socket of halfClosed.items()) if (socket.writable) socket.write(NOTHING);
  if (halfClosed.size > 0) return;
  clearInterval(halfClosedCheck);
  halfClosedCheck = null;
}
function watchAfterFin(socket) {
  if (socket.destroyed) return;
  const node = halfClosed.add(socket);
  socket.once('close', () => halfClosed.remove(node));
  halfClosedCheck ??= setInterval(checkHalfClosed, HALF_CLOSED_CHECK_MS).unref();
}

// Carries bytes both ways between two sockets, each direction through its
// own transform. One read becomes one corked batch of writes (a single
// writev), and a full write queue (write-queues.js) pauses the reading side
// until it drains. A FIN is passed on as a half-close. An error, a protocol
// violation or `idleTimeoutMs` without a byte either way resets both sides:
// a peer whose other half broke must not take a clean end for the end of
// its data.
// `aToBHold` says what the a-to-b transform holds back and when it lets go
// (a pipeline's held() and whenReleased()); past HOLD_MARK_BYTES `a` is not
// read until then. A client that reads on while the server is slow to
// answer would otherwise hit its protocol's bound and reset a genuine
// connection (a 16 MB upload with the server's hello 50 ms late did).
// `aEnded` / `bEnded` run when that side's FIN arrives, before it is passed
// on: the decoding side checks that the stream did not stop inside a
// record (or before its end record), the encoding side writes its end
// record, if its protocol has one. A protocol error from them (a cut
// stream) resets both instead of passing the FIN on.
export function bridge(
  a,
  b,
  { aToB, bToA, aToBHold = HOLDS_NOTHING, aEnded = () => {}, bEnded = () => {}, log, label, queues, idleTimeoutMs = 0 },
) {
  let torn = false;
  const tearDown = (error) => {
    if (torn) return;
    torn = true;
    if (error) log.debug(`${label}: ${error.message ?? error}`);
    resetSocket(a);
    resetSocket(b);
  };

  const carry = (from, to, transform, ended, hold) => {
    from.on('data', (data) => {
      to.cork();
      try {
        transform(data);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        tearDown(error);
        return;
      } finally {
        to.uncork();
      }
      if (queues.full(to)) {
        from.pause();
        to.once('drain', () => from.resume());
      } else if (hold.held() > HOLD_MARK_BYTES) {
        from.pause();
        hold.whenReleased(() => from.resume());
      }
    });
    from.on('end', () => {
      try {
        ended();
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return tearDown(error);
      }
      passEnd(from, to);
    });
  };

  // libuv reports a reset that arrives while a read is under way as an end
  // (POLLHUP after a partial read), so a FIN is passed on only once an
  // empty write back to its sender succeeds: on a reset socket it fails.
  // A sender we already sent our FIN to cannot be asked; one with bytes
  // still queued toward it is not made to wait for them (they fail too if
  // it was reset, and the error resets both).
  const passEnd = (from, to) => {
    const pass = () => {
      to.end();
      watchAfterFin(from);
    };
    if (!from.writable || from.writableLength > 0) return pass();
    from.write(NOTHING, (error) => (error ? tearDown(error) : pass()));
  };

  const afterClose = (closed, other) => (hadError) => {
    queues.release(closed);
    if (hadError) return tearDown(new Error('closed by an error'));
    if (other.writableLength === 0) return other.destroy();
    other.end();
    // Bytes still queued then never arrive: the peer must not see a FIN.
    setTimeout(() => (other.writableFinished ? other.destroy() : resetSocket(other)), LINGER_MS).unref();
  };

  carry(a, b, aToB, aEnded, aToBHold);
  carry(b, a, bToA, bEnded, HOLDS_NOTHING);
  a.on('error', tearDown);
  b.on('error', tearDown);
  a.on('close', afterClose(a, b));
  b.on('close', afterClose(b, a));
  if (idleTimeoutMs > 0) a.setTimeout(idleTimeoutMs, () => tearDown(new Error(`idle for ${idleTimeoutMs} ms`)));
  return { tearDown };
}
