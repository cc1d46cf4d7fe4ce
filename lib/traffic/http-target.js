import net from 'node:net';
import { bindClosingAll } from '../relay/listener.js';

// The far end of the request workload (`cipherbench http-target`): an
// HTTP/1.1 server that answers every request with `responseSize` bytes, on
// keep-alive connections unless a request says Connection: close. It reads
// only what the workload sends (heads without bodies), so its own cost per
// request stays far below any relay's. `delayMs` holds each answer back (a
// slow server); `resetEvery` resets every Nth request's connection instead
// of answering (a server that fails), for the tests of error counting.
const HEAD_END = Buffer.from('\r\n\r\n');
const CLOSE = /\r\nconnection:\s*close\r\n/i;

export async function startHttpTarget({
  host = '127.0.0.1',
  port = 0,
  responseSize = 2,
  delayMs = 0,
  resetEvery = 0,
} = {}) {
  const body = Buffer.alloc(responseSize, 'x');
  const head = (close) =>
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${responseSize}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`);
  const keepAlive = Buffer.concat([head(false), body]);
  const closing = Buffer.concat([head(true), body]);
  let requests = 0;
  const server = net.createServer({ noDelay: true }, (socket) => {
    let held = '';
    socket.setEncoding('latin1');
    socket.on('data', (data) => {
      held += data;
      let end;
      while ((end = held.indexOf('\r\n\r\n')) !== -1) {
        const request = held.slice(0, end + HEAD_END.length);
        held = held.slice(end + HEAD_END.length);
        requests += 1;
        if (resetEvery > 0 && requests % resetEvery === 0) return socket.resetAndDestroy();
        const close = CLOSE.test(request);
        const answer = () => (close ? socket.end(closing) : socket.write(keepAlive));
        if (delayMs > 0) setTimeout(answer, delayMs);
        else answer();
        if (close) return;
      }
      // A client that sends a head without end is not this workload's.
      if (held.length > 64 * 1024) socket.destroy();
    });
  });
  return { ...(await bindClosingAll(server, { host, port })), requests: () => requests };
}
