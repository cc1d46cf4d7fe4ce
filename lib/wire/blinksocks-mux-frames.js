import { createFieldStream } from './field-stream.js';
import { protocolError } from './protocol-error.js';

// blinksocks 3.3.0's multiplexing (its private `mux` preset,
// lib/presets/_mux.js): with `mux: true` every connection of the chain is a
// tunnel whose plaintext is a sequence of frames, each naming its session
// by a 4-byte id (random in blinksocks, a count in ours):
//   New   0x00 | id (4) | host length (1) | host (text) | port (2, big-endian)
//   Data  0x01 | id (4) | data length (2, big-endian) | data
//   Close 0x02 | id (4)
// Close ends a session both ways. There is no keep-alive, no error flag and
// no UDP. Frames come to the relay's mux machinery (relay/mux-client.js,
// mux-server.js) in Mux.Cool's shape (wire/mux-cool.js): { id, status,
// target, error, hasData, network }, with these statuses.
export const STATUS = Object.freeze({ new: 0x00, keep: 0x01, end: 0x02 });
export const NETWORK_TCP = 1;
// No magic target announces a tunnel: the chain's first preset
// (presets/blinksocks-mux.js) names this one to the relay server for every
// connection, and it is never dialled.
export const BLINKSOCKS_MUX_TARGET = Object.freeze({ host: 'blinksocks.mux', port: 0 });
const MOST_DATA_BYTES = 0xffff;

const header = (command, id, extra) => {
  const bytes = Buffer.alloc(5 + extra);
  bytes[0] = command;
  bytes.writeUInt32BE(id, 1);
  return bytes;
};

// One frame as buffers to write in order, as mux-cool.js's encodeFrame
// takes it: New carries `target` ({ host, port }) and then any data in
// Data frames, as blinksocks' client writes its first bytes; End is Close
// (`error` has nowhere to go).
export function encodeFrame({ id, status, target = null, data = null }) {
  const buffers = [];
  if (status === STATUS.new) {
    const host = Buffer.from(target.host);
    if (host.length === 0 || host.length > 0xff)
      throw new RangeError(`blinksocks-mux: a host of ${host.length} bytes, not 1 to 255`);
    const frame = header(STATUS.new, id, 1 + host.length + 2);
    frame[5] = host.length;
    host.copy(frame, 6);
    frame.writeUInt16BE(target.port, 6 + host.length);
    buffers.push(frame);
  } else if (status === STATUS.end) {
    return [header(STATUS.end, id, 0)];
  }
  if (!data) return buffers;
  let at = 0;
  do {
    const piece = data.subarray(at, at + MOST_DATA_BYTES);
    const frame = header(STATUS.keep, id, 2);
    frame.writeUInt16BE(piece.length, 5);
    buffers.push(frame, piece);
    at += MOST_DATA_BYTES;
  } while (at < data.length);
  return buffers;
}

// Hosts blinksocks' server takes (utils/validator.js isValidHostname): a
// name or address in printable ASCII, no spaces.
const HOST = /^[\x21-\x7e]{1,253}$/;

// Reads frames from a stream of bytes, with mux-cool.js's callbacks:
// onFrame(frame) for each frame's header, onData(frame, piece) as its data
// arrives (never held until whole), onFrameEnd(frame). A Data frame of
// length 0 is one that carries nothing (hasData false).
export function createFrameReader({ onFrame, onData, onFrameEnd }) {
  // 'command'; 'header' (the rest of the fixed part); 'host'; then the data.
  let state = 'command';
  let command = 0;
  let frame = null;

  const finishFrame = () => {
    const done = frame;
    frame = null;
    state = 'command';
    stream.field(1);
    onFrameEnd(done);
  };
  const startFrame = (fields) => {
    frame = { error: false, hasData: false, network: 0, target: null, ...fields };
    onFrame(frame);
  };
  const stream = createFieldStream({
    firstField: 1,
    onField(bytes) {
      if (state === 'command') {
        command = bytes[0];
        if (command > STATUS.end) throw protocolError(`blinksocks-mux: unknown frame command ${command}`);
        state = 'header';
        // id, then the host's length (New) or the data's (Data).
        stream.field(command === STATUS.new ? 5 : command === STATUS.keep ? 6 : 4);
      } else if (state === 'header') {
        const id = bytes.readUInt32BE(0);
        if (command === STATUS.end) {
          startFrame({ id, status: STATUS.end });
          finishFrame();
        } else if (command === STATUS.keep) {
          const length = bytes.readUInt16BE(4);
          startFrame({ id, status: STATUS.keep, hasData: length > 0 });
          if (length === 0) finishFrame();
          else stream.data(length);
        } else {
          if (bytes[4] === 0) throw protocolError('blinksocks-mux: a New frame with an empty host');
          frame = { id };
          state = 'host';
          stream.field(bytes[4] + 2);
        }
      } else {
        const host = bytes.subarray(0, bytes.length - 2).toString('latin1');
        if (!HOST.test(host)) throw protocolError('blinksocks-mux: a New frame whose host is not a host name');
        const port = bytes.readUInt16BE(bytes.length - 2);
        if (port === 0) throw protocolError('blinksocks-mux: a New frame for port 0');
        startFrame({ id: frame.id, status: STATUS.new, network: NETWORK_TCP, target: { host, port } });
        finishFrame();
      }
    },
    onData: (piece) => onData(frame, piece),
    onDataEnd: finishFrame,
  });

  return {
    read: stream.read,
    // Whether the bytes so far end on a frame's end.
    atBoundary: () => state === 'command' && stream.idle(),
  };
}
