import net from 'node:net';
import { socks5AnswerLength } from '../relay/inbounds/socks5.js';

const HEAD_END = Buffer.from('\r\n\r\n');
// A client that failed waits this long before its next try, so a dead
// relay costs a count of errors, not a busy loop.
const RETRY_MS = 10;
// What one read takes at most: a response of the default size in one read,
// a large one in several.
const READ_BUFFER_BYTES = 16 * 1024;
// The most a head (the target's, or a proxy's answer to CONNECT) may take.
const MOST_HEAD_BYTES = 16 * 1024;

// One client of the request workload (traffic/request-load.js): one request at
// a time on its connection, to its end, counting into `load.tally`. `load`
// is what every client of a run shares: { host, port, kind, request,
// handshake, newConnections, tally, stopped(), heads }, where heads is the
// head the target answers every request with, once parsed: a response that
// opens with the same bytes needs no parsing again. `done` is called once
// the client has stopped. Each client reads into a buffer of its own (net's
// onread), so a read allocates nothing and skips the stream layer: this is
// a load generator, and every microsecond it spends is taken from the
// relays it measures on a machine with few cores.
export class RequestClient {
  constructor(load, done) {
    this.load = load;
    this.done = done;
    this.socket = null;
    this.phase = 'idle';
    this.held = null;
    this.startedAt = 0;
    this.openedAt = 0;
    this.want = 0;
    this.closeAfter = false;
    this.readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.next = this.next.bind(this);
    this.onRead = this.onRead.bind(this);
  }

  // When the request in flight (or the handshake) began; null when idle.
  since() {
    if (this.phase === 'idle') return null;
    return this.phase === 'handshake' ? this.openedAt : this.startedAt;
  }

  next() {
    if (this.phase !== 'idle') return;
    if (this.load.stopped()) {
      this.drop();
      this.done();
      return;
    }
    if (this.socket) this.send();
    else this.open();
  }

  open() {
    const { host, port, handshake, tally } = this.load;
    tally.opened();
    const socket = net.connect({
      host,
      port,
      noDelay: true,
      onread: { buffer: this.readBuffer, callback: this.onRead },
    });
    this.socket = socket;
    this.held = null;
    this.closeAfter = false;
    this.openedAt = performance.now();
    socket.on('error', (error) => this.fail(error.code === 'ECONNREFUSED' ? 'refused' : 'reset'));
    socket.on('close', () => {
      if (this.socket === socket) this.fail('reset');
    });
    if (handshake) {
      this.phase = 'handshake';
      socket.write(handshake);
    } else {
      this.send();
    }
  }

  send() {
    this.phase = 'response';
    this.held = null;
    this.want = 0;
    this.startedAt = this.load.newConnections ? this.openedAt : performance.now();
    this.socket.write(this.load.request);
  }

  drop() {
    if (this.socket) {
      this.socket.removeAllListeners();
      this.socket.on('error', () => {});
      this.socket.destroy();
    }
    this.socket = null;
    this.phase = 'idle';
  }

  fail(kind) {
    this.load.tally.failed(kind);
    this.drop();
    setTimeout(this.next, RETRY_MS);
  }

  complete() {
    this.load.tally.answered(this.startedAt);
    this.phase = 'idle';
    if (this.closeAfter || this.load.newConnections) this.drop();
    this.next();
  }

  // The usual read: a whole response with the head already seen, in one
  // read, compared in place and never copied.
  onRead(length, buffer) {
    const { heads } = this.load;
    if (
      this.phase === 'response' &&
      this.held === null &&
      heads.bytes !== null &&
      length >= heads.bytes.length &&
      buffer.compare(heads.bytes, 0, heads.bytes.length, 0, heads.bytes.length) === 0
    ) {
      const whole = heads.bytes.length + heads.bodyLength;
      if (length === whole) {
        this.closeAfter = heads.close;
        return this.complete();
      }
      if (length > whole) return this.fail('badResponse');
    }
    // Anything else is kept (a copy: the buffer is read into again).
    const data = Buffer.from(buffer.subarray(0, length));
    this.held = this.held ? Buffer.concat([this.held, data]) : data;
    if (this.phase === 'handshake') return this.readHandshake();
    if (this.phase === 'response') return this.readResponse();
    return this.fail('badResponse');
  }

  // The proxy's answer to the SOCKS5 or HTTP CONNECT handshake.
  readHandshake() {
    const { held } = this;
    let length;
    if (this.load.kind === 'socks5') {
      try {
        length = socks5AnswerLength((at) => held[at], held.length);
      } catch {
        return this.fail('refused');
      }
    } else {
      const end = held.indexOf(HEAD_END);
      if (end === -1) return held.length > MOST_HEAD_BYTES ? this.fail('badResponse') : undefined;
      if (!/^HTTP\/1\.[01] 200 /.test(held.toString('latin1', 0, 13))) return this.fail('refused');
      length = end + HEAD_END.length;
    }
    if (length === 0) return undefined;
    if (held.length > length) return this.fail('badResponse');
    return this.send();
  }

  // A response read whole, its head parsed for its status, length and
  // whether the connection closes after it.
  readResponse() {
    const { held } = this;
    if (this.want === 0) {
      const end = held.indexOf(HEAD_END);
      if (end === -1) return held.length > MOST_HEAD_BYTES ? this.fail('badResponse') : undefined;
      const head = held.toString('latin1', 0, end + 2);
      const length = /\r\ncontent-length:\s*(\d+)\r\n/i.exec(head);
      if (!head.startsWith('HTTP/1.1 200 ') && !head.startsWith('HTTP/1.0 200 ')) return this.fail('badResponse');
      if (!length) return this.fail('badResponse');
      this.closeAfter = /\r\nconnection:\s*close\r\n/i.test(head) || head.startsWith('HTTP/1.0');
      this.want = end + HEAD_END.length + Number(length[1]);
      Object.assign(this.load.heads, {
        bytes: Buffer.from(held.subarray(0, end + HEAD_END.length)),
        bodyLength: Number(length[1]),
        close: this.closeAfter,
      });
    }
    if (held.length < this.want) return undefined;
    if (held.length > this.want) return this.fail('badResponse');
    return this.complete();
  }
}
