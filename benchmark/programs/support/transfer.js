import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';

export const sha256 = (data) => createHash('sha256').update(data).digest('hex');

// Sends `size` random bytes through an entry port to an echo target and
// reads them all back; resolves with the hashes of what was sent and what
// returned. It closes only once everything is back: shadowsocks-libev does
// not half-close, so a FIN sent early would cut off the echo in flight.
// For a peer with a defect the tests work around (docs/xray-sing-box.md):
// `firstPiece` bytes go alone and come back before the rest is sent (an
// application that speaks first in a small message), and `abortWhenBack`
// closes at once when everything is back instead of waiting for the far
// end's close to come back through the path.
export function echoTransfer({
  port,
  host = '127.0.0.1',
  size = 8 * 1024 * 1024,
  timeoutMs = 30_000,
  firstPiece = 0,
  abortWhenBack = false,
}) {
  const payload = randomBytes(size);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, allowHalfOpen: true });
    const back = createHash('sha256');
    let received = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`echo transfer through :${port} timed out with ${received} of ${size} bytes back`));
    }, timeoutMs);
    const chunk = 256 * 1024;
    let offset = 0;
    const writeMore = () => {
      while (offset < size) {
        const piece = payload.subarray(offset, offset + chunk);
        offset += piece.length;
        if (!socket.write(piece)) return socket.once('drain', writeMore);
      }
    };
    socket.on('connect', () => {
      if (firstPiece > 0) {
        offset = Math.min(firstPiece, size);
        socket.write(payload.subarray(0, offset));
      } else writeMore();
    });
    socket.on('data', (data) => {
      back.update(data);
      const before = received;
      received += data.length;
      if (firstPiece > 0 && before < firstPiece && received >= firstPiece) writeMore();
      if (received >= size) {
        if (abortWhenBack) socket.destroy();
        else socket.end();
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ sent: sha256(payload), returned: back.digest('hex'), bytesBack: received });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
