import { createHash, randomBytes } from 'node:crypto';
import { randomView } from '../crypto/random-pool.js';
import {
  checkTarget,
  checkUpgraded,
  formatHead,
  parseRequestLine,
  refusal,
  UPGRADE_PARAMS,
  upgradeTransport,
  upgradingCodec,
} from '../wire/http-upgrade.js';
import { protocolError } from '../wire/protocol-error.js';
import { applyMask, maskInto } from '../wire/ws-mask.js';

// WebSocket (RFC 6455) as the chain's transport, the wire of Xray's and
// sing-box's `ws`: the client's HTTP/1.1 GET with Upgrade: websocket and a
// Sec-WebSocket-Key, the server's 101 with its Sec-WebSocket-Accept, then
// binary frames each way, the client's masked with a fresh key a frame.
// One frame carries whatever the relay wrote at once; a message may span
// frames, and the bytes are carried as they arrive, frame by frame, so a
// frame's announced length costs nothing until its bytes come.
//
// The Close frame is this transport's FIN: a relay sends its own when its
// side of the stream ends and reads on until the peer's, so a half-close
// is carried as over TCP (RFC 6455 5.5.1 lets an endpoint finish what it
// is sending before it answers a Close). A stream that ends without one,
// or inside a frame, is a cut stream, passed on as a reset.
//
// Framed here rather than with the `ws` package: its stream closes both
// ways at the first Close, so a half-close could not be carried; its
// server needs an http.Server to parse the upgrade; and without its
// optional native addon it masks a byte at a time, where this masks 16
// (wire/ws-mask.js).
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OPCODES = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa };
const NORMAL_CLOSURE = 1000;
// A peer may interleave control frames (a keep-alive ping) and empty
// frames with its data, never this many in a row: each ping costs a pong,
// and a flood of them that is never read would queue pongs without end.
export const MOST_EMPTY_FRAMES_IN_A_ROW = 64;
const CONTROL_PAYLOAD_BYTES = 125;

// The server's Sec-WebSocket-Accept for a client's Sec-WebSocket-Key.
export const acceptKey = (key) =>
  createHash('sha1')
    .update(key + GUID)
    .digest('base64');

// A frame's header: FIN set, the opcode, the length in 7, 7+16 or 7+64
// bits, and the masking key when `key` is given.
function frameHeader(opcode, length, key = null) {
  const size = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  const header = Buffer.allocUnsafe(size + (key ? 4 : 0));
  header[0] = 0x80 | opcode;
  const maskBit = key ? 0x80 : 0;
  if (size === 2) header[1] = maskBit | length;
  else if (size === 4) {
    header[1] = maskBit | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = maskBit | 127;
    header.writeUInt32BE(Math.floor(length / 0x100000000), 2);
    header.writeUInt32BE(length >>> 0, 6);
  }
  if (key) key.copy(header, size);
  return header;
}

// One binary frame of `buffers`: a server's as it is (the header, then the
// bytes, no copy), a client's masked into one new buffer.
export function encodeFrame(buffers, { masked, opcode = OPCODES.binary, key = masked ? randomView(4) : null }) {
  const length = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
  const header = frameHeader(opcode, length, key);
  if (!masked) return [header, ...buffers];
  const frame = Buffer.allocUnsafe(header.length + length);
  header.copy(frame);
  let offset = header.length;
  let phase = 0;
  for (const buffer of buffers) {
    phase = maskInto(buffer, frame, offset, key, phase);
    offset += buffer.length;
  }
  return [frame];
}

const closeFrame = (masked) => {
  const body = Buffer.alloc(2);
  body.writeUInt16BE(NORMAL_CLOSURE);
  return encodeFrame([body], { masked, opcode: OPCODES.close });
};

// Reads frames from a stream of bytes. `masked`: whether the peer must
// mask (a client does, a server must not). Data frames' bytes go to
// onData as they arrive, unmasked in place (the buffers are the reader's
// own); a control frame's whole payload to onControl(opcode, payload).
// Every rule of RFC 6455 5 a sender can break is a protocol error, which
// fails the connection.
export function createFrameReader({ masked, onData, onControl }) {
  const head = Buffer.alloc(14);
  let have = 0;
  let remaining = 0;
  let inFrame = false;
  let opcode = 0;
  let key = null;
  let phase = 0;
  let control = [];
  let inMessage = false;
  let emptyInARow = 0;
  let closed = false;

  const headerLength = () => {
    const len7 = head[1] & 0x7f;
    return 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (head[1] & 0x80 ? 4 : 0);
  };

  const startFrame = () => {
    if (head[0] & 0x70) throw protocolError('ws: a frame with reserved bits set, and no extension agreed');
    const fin = (head[0] & 0x80) !== 0;
    opcode = head[0] & 0x0f;
    const isMasked = (head[1] & 0x80) !== 0;
    if (isMasked !== masked) {
      throw protocolError(masked ? 'ws: an unmasked frame from a client' : 'ws: a masked frame from a server');
    }
    const len7 = head[1] & 0x7f;
    let length = len7;
    if (len7 === 126) length = head.readUInt16BE(2);
    else if (len7 === 127) {
      const high = head.readUInt32BE(2);
      if (high & 0x80000000) throw protocolError('ws: a frame length with its most significant bit set');
      length = high * 0x100000000 + head.readUInt32BE(6);
      if (!Number.isSafeInteger(length)) throw protocolError(`ws: a frame announcing ${length} bytes`);
    }
    if (opcode >= 0x8) {
      if (opcode !== OPCODES.close && opcode !== OPCODES.ping && opcode !== OPCODES.pong) {
        throw protocolError(`ws: a frame of reserved opcode ${opcode}`);
      }
      if (!fin) throw protocolError('ws: a fragmented control frame');
      if (length > CONTROL_PAYLOAD_BYTES) throw protocolError(`ws: a control frame of ${length} bytes, over 125`);
      if (opcode === OPCODES.close && length === 1) throw protocolError('ws: a Close frame of 1 byte');
    } else if (opcode === OPCODES.text) {
      throw protocolError('ws: a text frame; this transport carries binary frames');
    } else if (opcode === OPCODES.binary) {
      if (inMessage) throw protocolError('ws: a new message before the last one finished');
      inMessage = !fin;
    } else if (opcode === OPCODES.continuation) {
      if (!inMessage) throw protocolError('ws: a continuation frame outside a message');
      inMessage = !fin;
    } else {
      throw protocolError(`ws: a frame of reserved opcode ${opcode}`);
    }
    if (opcode >= 0x8 || length === 0) {
      emptyInARow += 1;
      if (emptyInARow > MOST_EMPTY_FRAMES_IN_A_ROW) {
        throw protocolError(`ws: over ${MOST_EMPTY_FRAMES_IN_A_ROW} frames in a row carried no data`);
      }
    }
    key = isMasked ? Buffer.from(head.subarray(headerLength() - 4, headerLength())) : null;
    phase = 0;
    remaining = length;
    inFrame = true;
    have = 0;
    if (remaining === 0) endFrame();
  };

  // Data frames' bytes read from one chunk go on as one piece: the frames
  // after the first are moved back over the headers between them (bytes
  // already read), so a 64 KiB read of 16 KiB frames is one delivery, and
  // one batch for the chain to open and write, as over TCP.
  let pendingChunk = null;
  let pendingFrom = 0;
  let pendingTo = 0;
  const holdData = (chunk, from, to) => {
    if (pendingChunk !== chunk) {
      deliverHeld();
      pendingChunk = chunk;
      pendingFrom = from;
      pendingTo = from;
    }
    if (from !== pendingTo) chunk.copyWithin(pendingTo, from, to);
    pendingTo += to - from;
  };
  const deliverHeld = () => {
    if (pendingChunk === null) return;
    const piece = pendingChunk.subarray(pendingFrom, pendingTo);
    pendingChunk = null;
    onData(piece);
  };

  const endFrame = () => {
    inFrame = false;
    if (opcode < 0x8) return;
    deliverHeld();
    const payload = control.length === 1 ? control[0] : Buffer.concat(control);
    control = [];
    if (opcode === OPCODES.close) closed = true;
    onControl(opcode, payload);
  };

  const readFrames = (chunk) => {
    let at = 0;
    while (at < chunk.length && !closed) {
      if (!inFrame) {
        while (have < 2 && at < chunk.length) head[have++] = chunk[at++];
        if (have < 2) return;
        const need = headerLength();
        while (have < need && at < chunk.length) head[have++] = chunk[at++];
        if (have < need) return;
        startFrame();
        continue;
      }
      const take = Math.min(remaining, chunk.length - at);
      const piece = chunk.subarray(at, at + take);
      if (key) phase = applyMask(piece, key, phase);
      if (opcode >= 0x8) control.push(piece);
      else {
        emptyInARow = 0;
        holdData(chunk, at, at + take);
      }
      at += take;
      remaining -= take;
      if (remaining === 0) endFrame();
    }
  };

  return {
    // Bytes after a Close are not read: the peer has said it is done, and
    // sing-box says so twice (its reader answers a Close with one, then its
    // Close() sends another).
    read(chunk) {
      try {
        readFrames(chunk);
      } finally {
        deliverHeld();
      }
    },
    // Whether the bytes so far end on a frame's end.
    atBoundary: () => !inFrame && have === 0,
    closed: () => closed,
  };
}

// What both ends do once upgraded: carry data frames, answer a ping,
// take a Close as the peer's end, and check the end of the stream.
function framedConnection(masked, io) {
  let closeSent = false;
  const reader = createFrameReader({
    masked: !masked,
    onData: io.deliver,
    onControl(opcode, payload) {
      if (opcode === OPCODES.ping && !closeSent) io.send(encodeFrame([payload], { masked, opcode: OPCODES.pong }));
      else if (opcode === OPCODES.close) io.peerEnded();
    },
  });
  return {
    read: (chunk) => reader.read(chunk),
    frame: (buffers) => encodeFrame(buffers, { masked }),
    close() {
      closeSent = true;
      return closeFrame(masked);
    },
    ended() {
      if (!reader.atBoundary()) throw protocolError('ws: the stream ended inside a frame');
      if (!reader.closed()) throw protocolError('ws: the stream ended without a Close frame');
    },
  };
}

const keyIsValid = (key) => /^[A-Za-z0-9+/]{22}==$/.test(key ?? '');

function serverCodec({ path, host }, note) {
  return upgradingCodec({
    unfinished: 'ws: the connection ended inside its upgrade request',
    start() {},
    upgrade({ startLine, headers }, io) {
      const request = parseRequestLine(startLine);
      checkTarget(request, headers, { path, host }, 'ws');
      if (headers.get('sec-websocket-version') !== '13') {
        throw refusal(
          400,
          `ws: Sec-WebSocket-Version ${JSON.stringify(headers.get('sec-websocket-version') ?? '')}, not 13`,
        );
      }
      const key = headers.get('sec-websocket-key');
      if (!keyIsValid(key)) throw refusal(400, 'ws: a Sec-WebSocket-Key that is not 16 bytes in base64');
      note(`ws ${path}`);
      return {
        answer: [
          formatHead('HTTP/1.1 101 Switching Protocols', [
            ['Upgrade', 'websocket'],
            ['Connection', 'Upgrade'],
            ['Sec-WebSocket-Accept', acceptKey(key)],
          ]),
        ],
        upgraded: framedConnection(false, io),
      };
    },
  });
}

export const upgradeRequest = ({ path, host, key }) =>
  formatHead(`GET ${path} HTTP/1.1`, [
    ['Host', host],
    ['Upgrade', 'websocket'],
    ['Connection', 'Upgrade'],
    ['Sec-WebSocket-Key', key],
    ['Sec-WebSocket-Version', '13'],
  ]);

function clientCodec({ path, host }, note) {
  const key = randomBytes(16).toString('base64');
  return upgradingCodec({
    unfinished: 'ws: the connection ended inside its upgrade (the server never answered it)',
    start(io) {
      io.send([upgradeRequest({ path, host, key })]);
    },
    upgrade(head, io) {
      checkUpgraded(head, path, 'ws');
      if (head.headers.get('sec-websocket-accept') !== acceptKey(key)) {
        throw protocolError("ws: a Sec-WebSocket-Accept that does not answer the client's key");
      }
      note(`ws ${path}, Host ${host}`);
      return { answer: [], upgraded: framedConnection(true, io) };
    },
  });
}

export default {
  name: 'ws',
  summary:
    "WebSocket transport (RFC 6455), as Xray's and sing-box's ws: an HTTP/1.1 upgrade, then binary frames; tls may carry it",
  roles: ['transport'],
  // The transports that may carry this one (follow it in the chain).
  inside: ['tls'],
  params: UPGRADE_PARAMS,
  prepare() {
    return () => ({});
  },
  transport: upgradeTransport(serverCodec, clientCodec),
};
