import { authorityParam, http2Client, http2Server, offersH2, refusal } from '../wire/http2-tunnel.js';
import { protocolError } from '../wire/protocol-error.js';

// The "gun" transport of V2Ray, Xray and sing-box: one gRPC call,
// POST /<serviceName>/Tun, whose request and response are each a stream
// of gRPC messages (a flag byte 0, no compression; a 4-byte big-endian
// length) holding the protobuf `Hunk { bytes data = 1; }`: tag 0x0a, a
// varint length, the bytes. The client's END_STREAM is its FIN, the
// server's trailers (grpc-status 0) its own. Over TCP it is h2c with prior
// knowledge, as grpc-go without credentials and sing-box without tls
// speak it; inside tls, HTTP/2 over TLS.
//
// Xray's multiMode calls /<serviceName>/TunMulti and sends
// `MultiHunk { repeated bytes data = 1; }`: the same field, so the same
// bytes for one piece, and a message of several pieces is their fields
// one after another. The reader takes either in any message, the server
// serves both paths, and the client calls TunMulti with `multiMode`.
const DEFAULT_SERVICE = 'cipherbench';
const DEFAULT_HOST = 'localhost';
const DATA_TAG = 0x0a;
// What a server refuses to read as one message: grpc-go's default
// MaxRecvMsgSize, 4 MiB, the most Xray's server takes, so no peer that
// works with Xray sends more. The reader carries a message's bytes as they
// arrive, so the bound is a sanity check on a length, not memory held.
export const MOST_MESSAGE_BYTES = 4 * 1024 * 1024;
// What one message of ours carries at most: a relay's read, 64 KiB.
export const MOST_HUNK_BYTES = 64 * 1024;
const PREFIX_BYTES = 5;

const varintLength = (value) => {
  let length = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    length += 1;
  }
  return length;
};

// The gRPC prefix and Hunk field header of a message carrying `size` bytes.
export function hunkHeader(size) {
  const fieldHeader = 1 + varintLength(size);
  const header = Buffer.allocUnsafe(PREFIX_BYTES + fieldHeader);
  header[0] = 0;
  header.writeUInt32BE(fieldHeader + size, 1);
  header[5] = DATA_TAG;
  let at = 6;
  for (let value = size; ; at++) {
    if (value < 0x80) {
      header[at] = value;
      break;
    }
    header[at] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 0x80);
  }
  return header;
}

// What the relay wrote, as messages of at most MOST_HUNK_BYTES: each a
// header, then the buffers as they are (no copy). Never an empty Hunk:
// proto3 writes an empty `data` as nothing, a message of 0 bytes, which
// sing-box's reader (it skips 6 bytes without reading the length) would
// take the next message's first byte for.
export function encodeHunks(buffers) {
  const out = [];
  let piece = [];
  let size = 0;
  const flush = () => {
    out.push(hunkHeader(size), ...piece);
    piece = [];
    size = 0;
  };
  for (let buffer of buffers) {
    while (buffer.length > 0) {
      const take = Math.min(buffer.length, MOST_HUNK_BYTES - size);
      piece.push(buffer.subarray(0, take));
      size += take;
      buffer = buffer.subarray(take);
      if (size === MOST_HUNK_BYTES) flush();
    }
  }
  if (size > 0) flush();
  return out;
}

// Reads messages from a stream of bytes, giving each piece of data to
// `deliver` as it arrives (subarrays of the chunks read). Anything but
// uncompressed messages of `data` fields, each inside its message, is a
// protocol error.
export function createHunkReader(deliver) {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  let state = 'prefix';
  let have = 0;
  let messageLeft = 0;
  let fieldLeft = 0;
  let varint = 0;
  let varintBytes = 0;

  const startMessage = () => {
    if (prefix[0] === 1) throw protocolError('grpc: a compressed message, and no grpc-encoding agreed');
    if (prefix[0] !== 0) throw protocolError(`grpc: a message flag of ${prefix[0]}, not 0`);
    messageLeft = prefix.readUInt32BE(1);
    if (messageLeft > MOST_MESSAGE_BYTES) {
      throw protocolError(`grpc: a message announcing ${messageLeft} bytes, over ${MOST_MESSAGE_BYTES}`);
    }
    have = 0;
    state = messageLeft === 0 ? 'prefix' : 'tag';
  };
  const nextField = () => {
    state = messageLeft === 0 ? 'prefix' : 'tag';
  };

  return {
    read(chunk) {
      let at = 0;
      while (at < chunk.length) {
        if (state === 'prefix') {
          while (have < PREFIX_BYTES && at < chunk.length) prefix[have++] = chunk[at++];
          if (have === PREFIX_BYTES) startMessage();
        } else if (state === 'tag') {
          const tag = chunk[at++];
          messageLeft -= 1;
          if (tag !== DATA_TAG) throw protocolError(`grpc: a field tagged 0x${tag.toString(16)}, not data (0x0a)`);
          varint = 0;
          varintBytes = 0;
          state = 'varint';
          if (messageLeft === 0) throw protocolError("grpc: a message that ends inside its field's length");
        } else if (state === 'varint') {
          const byte = chunk[at++];
          messageLeft -= 1;
          varint += (byte & 0x7f) * 2 ** (7 * varintBytes);
          varintBytes += 1;
          if (byte & 0x80) {
            if (varintBytes === 5) throw protocolError('grpc: a field length of over 5 varint bytes');
            if (messageLeft === 0) throw protocolError("grpc: a message that ends inside its field's length");
            continue;
          }
          if (varint > messageLeft) {
            throw protocolError(`grpc: a field of ${varint} bytes in a message with ${messageLeft} left`);
          }
          fieldLeft = varint;
          if (fieldLeft > 0) state = 'data';
          else nextField();
        } else {
          const take = Math.min(fieldLeft, chunk.length - at);
          deliver(chunk.subarray(at, at + take));
          at += take;
          fieldLeft -= take;
          messageLeft -= take;
          if (fieldLeft === 0) nextField();
        }
      }
    },
    ended() {
      if (state !== 'prefix' || have > 0) throw protocolError('grpc: the stream ended inside a message');
    },
  };
}

const framing = () => ({ encode: encodeHunks, decoder: createHunkReader });

const hostMatches = (headers, host) =>
  host === undefined || String(headers[':authority'] ?? headers.host ?? '').toLowerCase() === host.toLowerCase();

function serverCheck({ serviceName, host }) {
  const paths = [`/${serviceName}/Tun`, `/${serviceName}/TunMulti`];
  return (headers) => {
    const path = headers[':path'];
    if (!paths.includes(path)) throw refusal(`grpc: a call to ${JSON.stringify(path)}, not ${paths[0]} (answered 404)`);
    if (headers[':method'] !== 'POST') throw refusal(`grpc: a ${headers[':method']} request, not POST (answered 404)`);
    if (!String(headers['content-type'] ?? '').startsWith('application/grpc')) {
      throw refusal('grpc: a request without content-type application/grpc (answered 404)');
    }
    if (!hostMatches(headers, host)) throw refusal(`grpc: a call for another host, not ${host} (answered 404)`);
  };
}

function checkResponse(headers) {
  if (headers[':status'] !== 200) throw protocolError(`grpc: the server answered ${headers[':status']}`);
  if (!String(headers['content-type'] ?? '').startsWith('application/grpc')) {
    throw protocolError('grpc: a response without content-type application/grpc');
  }
  checkTrailers(headers);
}

// grpc-status in the trailers (or a trailers-only response): 0 is the
// call's clean end, anything else its failure.
function checkTrailers(headers) {
  const status = headers['grpc-status'];
  if (status === undefined || status === '0') return;
  const message = headers['grpc-message'] ? `: ${decodeURIComponent(headers['grpc-message'])}` : '';
  throw protocolError(`grpc: the call failed with grpc-status ${status}${message}`);
}

export default {
  name: 'grpc',
  summary:
    "gRPC transport, V2Ray's, Xray's and sing-box's \"gun\": one call of Hunk messages over HTTP/2 (h2c, or inside tls)",
  roles: ['transport'],
  inside: ['tls'],
  params: {
    serviceName: {
      required: false,
      description: `the gRPC service called, /<serviceName>/Tun (default ${DEFAULT_SERVICE})`,
      check: (value) =>
        typeof value === 'string' && /^[A-Za-z0-9._~-]{1,128}$/.test(value)
          ? undefined
          : 'must be a service name of letters, digits and . _ ~ -, e.g. "cipherbench"',
    },
    host: authorityParam(DEFAULT_HOST),
    multiMode: {
      required: false,
      description: "client: true to call TunMulti, Xray's multiMode (the server serves both)",
      check: (value) => (typeof value === 'boolean' ? undefined : 'must be true or false'),
    },
  },
  placement: offersH2('grpc'),
  prepare() {
    return () => ({});
  },
  transport(params, { note = () => {} } = {}) {
    const serviceName = params.serviceName ?? DEFAULT_SERVICE;
    const host = params.host ?? DEFAULT_HOST;
    const path = `/${serviceName}/${params.multiMode ? 'TunMulti' : 'Tun'}`;
    const accept = http2Server({
      framing,
      check: serverCheck({ serviceName, host: params.host }),
      answer: { ':status': 200, 'content-type': 'application/grpc' },
      trailers: { 'grpc-status': '0' },
      note: (called) => note(`grpc ${called}`),
    });
    return {
      accept,
      connect: (inner) =>
        http2Client(inner, {
          framing,
          authority: host,
          request: {
            ':method': 'POST',
            ':path': path,
            'content-type': 'application/grpc',
            te: 'trailers',
          },
          check: checkResponse,
          checkTrailers,
          note: () => note(`grpc ${path}, Host ${host}`),
        }),
    };
  },
};
