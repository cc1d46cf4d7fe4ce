import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { measurementError } from '../errors.js';

// The built-in engine's wire format (docs/traffic-engine.md). Like iperf3,
// the sender opens one control connection and N data connections, all to
// the same address and so all through the relays; the figures travel back
// on the control connection as messages, never by closing a direction,
// because shadowsocks-libev does not carry a half-close.
//
// Every connection starts with a hello: magic, kind, stream index, and the
// test's cookie. The cookie ties data streams to their test; anything that
// does not start with the magic (a port probe, a stray iperf3) is dropped.
const MAGIC = Buffer.from('cbtraf01');
const COOKIE_LENGTH = 16;
export const HELLO_LENGTH = MAGIC.length + 1 + 2 + COOKIE_LENGTH;
export const CONTROL = 'control';
export const DATA = 'data';
const KIND_BYTES = { [CONTROL]: 0x43, [DATA]: 0x44 };

// As iperf3 allows: -P up to 128, -t up to a day.
export const MAX_STREAMS = 128;
export const MAX_DURATION_SECONDS = 86_400;

// From the control hello until every data stream has arrived, either side.
export const SETUP_TIMEOUT_MS = 10_000;
// Waiting for bytes still in flight once the sending side has stopped: done
// when all have arrived, or when none has for DRAIN_IDLE_MS (lost on the
// way: the receiver then reports what did arrive), at most DRAIN_LIMIT_MS.
export const DRAIN_IDLE_MS = 3000;
export const DRAIN_LIMIT_MS = 60_000;

// One buffer, written again and again: no allocation per write. 1 MiB
// rather than iperf3's 128 KiB because Node pays per write() call (a JS to
// C++ crossing, a syscall, a callback): where the writer is the limit
// (--reverse, the sink writing) it was the faster of the two here
// (docs/traffic-engine.md).
export const WRITE_SIZE = 1024 * 1024;
// Reads land in one reused buffer (net's onread) instead of a fresh
// allocation each; what they hold is never looked at, only counted.
export const READ_SIZE = 256 * 1024;

// A control message is one line of JSON; a longer line is not ours.
const MAX_MESSAGE_LENGTH = 64 * 1024;

export const newCookie = () => randomBytes(COOKIE_LENGTH);

export function encodeHello({ kind, stream = 0, cookie }) {
  const hello = Buffer.alloc(HELLO_LENGTH);
  MAGIC.copy(hello, 0);
  hello[MAGIC.length] = KIND_BYTES[kind];
  hello.writeUInt16BE(stream, MAGIC.length + 1);
  cookie.copy(hello, MAGIC.length + 3);
  return hello;
}

// null when `bytes` (exactly HELLO_LENGTH of them) is not a hello.
function decodeHello(bytes) {
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const kind = Object.keys(KIND_BYTES).find((name) => KIND_BYTES[name] === bytes[MAGIC.length]);
  if (!kind) return null;
  return {
    kind,
    stream: bytes.readUInt16BE(MAGIC.length + 1),
    cookie: bytes.subarray(MAGIC.length + 3, HELLO_LENGTH).toString('hex'),
  };
}

// Collects the hello at the start of a connection, however it is split,
// then hands it over with whatever came after it in the same read.
export function readHello(socket, onHello) {
  const parts = [];
  let length = 0;
  const onData = (data) => {
    parts.push(data);
    length += data.length;
    if (length < HELLO_LENGTH) return;
    socket.off('data', onData);
    const all = Buffer.concat(parts, length);
    onHello(decodeHello(all.subarray(0, HELLO_LENGTH)), all.subarray(HELLO_LENGTH));
  };
  socket.on('data', onData);
}

export function sendMessage(socket, message) {
  socket.write(`${JSON.stringify(message)}\n`);
}

// Feeds control-connection bytes in, calls onMessage with each complete
// message. Throws a measurement error on a line that is too long or not JSON.
export function messageReader(onMessage) {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  return (data) => {
    pending += decoder.write(data);
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        throw measurementError(`traffic: a control message is not JSON: ${JSON.stringify(line.slice(0, 80))}`);
      }
      if (typeof message !== 'object' || message === null || Array.isArray(message)) {
        throw measurementError(`traffic: a control message is not a JSON object: ${JSON.stringify(line.slice(0, 80))}`);
      }
      onMessage(message);
      newline = pending.indexOf('\n');
    }
    if (pending.length > MAX_MESSAGE_LENGTH)
      throw measurementError(`traffic: a control message is longer than ${MAX_MESSAGE_LENGTH} bytes`);
  };
}
