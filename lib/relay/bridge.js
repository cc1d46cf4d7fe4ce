import { isProtocolError } from '../presets/protocol-error.js';

// How long one side may keep flushing after the other has closed cleanly.
const LINGER_MS = 5000;

// Carries bytes both ways between two sockets, each direction through its
// own transform. One read becomes one corked batch of writes (a single
// writev), and a full write buffer pauses the reading side until it drains.
// A FIN is passed on as a half-close; an error or protocol violation on
// either side tears down both at once.
export function bridge(a, b, { aToB, bToA, log, label }) {
  let torn = false;
  const tearDown = (error) => {
    if (torn) return;
    torn = true;
    if (error) log.debug(`${label}: ${error.message ?? error}`);
    a.destroy();
    b.destroy();
  };

  const carry = (from, to, transform) => {
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
      if (to.writableNeedDrain) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    });
    from.on('end', () => to.end());
  };

  const afterClose = (closed, other) => (hadError) => {
    if (hadError || other.writableLength === 0) return tearDown();
    other.end();
    setTimeout(() => other.destroy(), LINGER_MS).unref();
  };

  carry(a, b, aToB);
  carry(b, a, bToA);
  a.on('error', tearDown);
  b.on('error', tearDown);
  a.on('close', afterClose(a, b));
  b.on('close', afterClose(b, a));
  return { tearDown };
}
