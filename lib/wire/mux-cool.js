import { createFieldStream } from './field-stream.js';
import { protocolError } from './protocol-error.js';
import { decodeV2rayAddress, encodeV2rayAddress, v2rayAddressLength } from './v2ray-address.js';

// Mux.Cool, the multiplexing of V2Ray 4.x and Xray (V2Ray's "Mux.Cool
// protocol" document, Xray's common/mux): many streams, each a session
// with a 16-bit id, in frames inside one connection of the proxy protocol,
// whose target is the magic address v1.mux.cool. A frame is
//   metadata length (2, big-endian) | session id (2) | status (1) | option (1)
//   [New only: network (1: 1 TCP, 2 UDP) | port (2) | address type (1 IPv4,
//    2 domain, 3 IPv6) | address]
//   [option has Data (0x01): data length (2) | data]
// Status: New opens a session (with its target), Keep carries more of it,
// End closes it both ways (Error 0x02 in option: it broke), KeepAlive
// carries nothing. Metadata may carry more than these fields (Xray's XUDP
// global id, a reverse proxy's source address): a reader skips them.
//
// A UDP session (network 2) carries one datagram a frame's data. Xray's
// XUDP adds to that: a Keep frame's metadata may go on with network 2 and
// an address, the datagram's own target (client to server) or source
// (server to client), and a New frame's with an 8-byte global id. V2Ray
// 4.34 writes neither and reads past both.
export const MUX_COOL_TARGET = Object.freeze({ host: 'v1.mux.cool', port: 9527 });
export const STATUS = Object.freeze({ new: 1, keep: 2, end: 3, keepAlive: 4 });
const OPTION_DATA = 0x01;
const OPTION_ERROR = 0x02;
export const NETWORK_TCP = 1;
export const NETWORK_UDP = 2;
// Xray's and V2Ray's readers refuse metadata over 512 bytes; a New frame's
// own fields take at most 264.
export const MOST_METADATA_BYTES = 512;

// The address of a New frame or an XUDP Keep frame is V2Ray's
// (v2ray-address.js): port first, then type and address.
const ADDRESS_NAMES = { 1: 'IPv4 address', 2: 'domain name', 3: 'IPv6 address' };

// One frame as buffers to write in order: its metadata, then, when `data`
// is given (even empty), the Data option, its length and the bytes.
// `target` ({ host, port }) only with New, of `network`; `error` only with
// End; `address` only with Keep, a UDP datagram's address (XUDP's form).
export function encodeFrame({
  id,
  status,
  target = null,
  network = NETWORK_TCP,
  address = null,
  error = false,
  data = null,
}) {
  const option = (data ? OPTION_DATA : 0) | (error ? OPTION_ERROR : 0);
  let fields = Buffer.from([0, 0, id >>> 8, id & 0xff, status, option]);
  if (status === STATUS.new) {
    fields = Buffer.concat([fields, Buffer.from([network]), encodeV2rayAddress(target)]);
  } else if (status === STATUS.keep && address) {
    fields = Buffer.concat([fields, Buffer.from([NETWORK_UDP]), encodeV2rayAddress(address)]);
  }
  fields.writeUInt16BE(fields.length - 2, 0);
  if (!data) return [fields];
  const length = Buffer.from([data.length >>> 8, data.length & 0xff]);
  return [fields, length, data];
}

// The metadata's fields, past its length: { id, status, error, hasData,
// network, target } (network and target for New only). Throws
// protocolError for what no sender of the protocol writes.
function decodeMetadata(meta) {
  if (meta.length < 4) throw protocolError(`mux: metadata of ${meta.length} bytes, under 4`);
  const id = meta.readUInt16BE(0);
  const status = meta[2];
  const option = meta[3];
  if (status < STATUS.new || status > STATUS.keepAlive) throw protocolError(`mux: unknown frame status ${status}`);
  const frame = {
    id,
    status,
    error: (option & OPTION_ERROR) !== 0,
    hasData: (option & OPTION_DATA) !== 0,
    network: 0,
    target: null,
  };
  // Xray's reader takes a Keep frame's address only when network 2 follows.
  const udpKeep = status === STATUS.keep && meta.length > 4 && meta[4] === NETWORK_UDP;
  if (status !== STATUS.new && !udpKeep) return frame;
  const what = status === STATUS.new ? 'a New frame' : 'a Keep frame';
  if (meta.length < 8) throw protocolError(`mux: ${what}'s metadata of ${meta.length} bytes, under 8`);
  frame.network = meta[4];
  frame.target = decodePortThenAddress(meta, what);
  return frame;
}

// The port and address at byte 5 of the metadata.
function decodePortThenAddress(meta, what) {
  const length = v2rayAddressLength(meta, 5, `${what} of the mux`);
  if (length === 0 || meta.length < 5 + length)
    throw protocolError(`mux: ${what} cut inside its ${ADDRESS_NAMES[meta[7]]}`);
  return decodeV2rayAddress(meta.subarray(5, 5 + length));
}

// Reads frames from a stream of bytes: onFrame(frame) for each frame's
// metadata (decodeMetadata's shape), then its data as it arrives,
// onData(frame, piece), then onFrameEnd(frame). A frame's data is not
// held until it is whole: a frame announcing 64 KB costs nothing until
// its bytes come.
export function createFrameReader({ onFrame, onData, onFrameEnd }) {
  // 'length': the metadata length; 'meta'; 'data-length'; then the data.
  let state = 'length';
  let frame = null;

  const finishFrame = () => {
    const done = frame;
    frame = null;
    state = 'length';
    stream.field(2);
    onFrameEnd(done);
  };
  const stream = createFieldStream({
    firstField: 2,
    onField(bytes) {
      if (state === 'length') {
        const length = bytes.readUInt16BE(0);
        if (length > MOST_METADATA_BYTES)
          throw protocolError(`mux: metadata of ${length} bytes, over ${MOST_METADATA_BYTES}`);
        if (length < 4) throw protocolError(`mux: metadata of ${length} bytes, under 4`);
        state = 'meta';
        stream.field(length);
      } else if (state === 'meta') {
        frame = decodeMetadata(bytes);
        onFrame(frame);
        if (frame.hasData) {
          state = 'data-length';
          stream.field(2);
        } else finishFrame();
      } else {
        const length = bytes.readUInt16BE(0);
        if (length === 0) finishFrame();
        else stream.data(length);
      }
    },
    onData: (piece) => onData(frame, piece),
    onDataEnd: finishFrame,
  });

  return {
    read: stream.read,
    // Whether the bytes so far end on a frame's end.
    atBoundary: () => state === 'length' && stream.idle(),
  };
}
