import { MUX_COOL_TARGET } from '../../wire/mux-cool.js';
import { protocolError } from '../../wire/protocol-error.js';
import { decodeV2rayAddress, encodeV2rayAddress, v2rayAddressLength } from '../../wire/v2ray-address.js';

// The request header's plaintext, the same under both header kinds
// (V2Ray proxy/vmess/encoding/client.go EncodeRequestHeader):
//   version 1 | body IV (16) | body key (16) | response byte | option
//   | padding length << 4 | security | reserved 0 | command
//   | port (2, big-endian) | address type | address | padding | FNV-1a 32
// Address types: 1 IPv4, 2 domain (length byte first), 3 IPv6. Command 3
// opens a Mux.Cool tunnel and has no port or address: V2Ray's and Xray's
// clients send it for v1.mux.cool, and their servers read it as that
// target, port 0.
const VERSION = 1;
const COMMAND_TCP = 1;
const COMMAND_MUX = 3;
const MUX_TARGET = Object.freeze({ host: MUX_COOL_TARGET.host, port: 0 });
export const OPTION = { chunkStream: 0x01, chunkMasking: 0x04, globalPadding: 0x08 };
export const SECURITY = { 'aes-128-gcm': 3, 'chacha20-poly1305': 4, none: 5 };
const FIXED = 38;
// The fixed part, port, type, a 255-byte name with its length, the most
// padding (15) and the checksum: no valid request header is longer.
export const MAX_REQUEST_LENGTH = FIXED + 2 + 1 + 1 + 255 + 15 + 4;

export function fnv1a32(bytes) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash >>> 0;
}

export function encodeRequest({ bodyIv, bodyKey, responseByte, option, security, target, padding }) {
  const mux = target.host === MUX_COOL_TARGET.host;
  const address = mux ? Buffer.alloc(0) : encodeV2rayAddress(target);
  const head = Buffer.from([
    VERSION,
    ...bodyIv,
    ...bodyKey,
    responseByte,
    option,
    (padding.length << 4) | security,
    0,
    mux ? COMMAND_MUX : COMMAND_TCP,
  ]);
  const unsigned = Buffer.concat([head, address, padding]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(fnv1a32(unsigned));
  return Buffer.concat([unsigned, checksum]);
}

// The header's whole length once `plain` holds enough of it to tell, else 0.
export function requestLength(plain) {
  if (plain.length < FIXED) return 0;
  const paddingLength = plain[35] >> 4;
  if (plain[37] === COMMAND_MUX) return plain.length >= FIXED + paddingLength + 4 ? FIXED + paddingLength + 4 : 0;
  const addressLength = v2rayAddressLength(plain, FIXED, 'request header');
  if (addressLength === 0) return 0;
  const length = FIXED + addressLength + paddingLength + 4;
  return plain.length >= length ? length : 0;
}

// Checks and reads a whole request header (requestLength(header) ===
// header.length). The checksum is the header kind's last line of defence:
// the legacy header has no other integrity check.
export function decodeRequest(header) {
  if (header[0] !== VERSION) throw protocolError(`unknown request version ${header[0]}`);
  const expected = header.readUInt32BE(header.length - 4);
  if (fnv1a32(header.subarray(0, header.length - 4)) !== expected)
    throw protocolError('request header checksum mismatch');
  const command = header[37];
  if (command !== COMMAND_TCP && command !== COMMAND_MUX)
    throw protocolError(`unsupported command ${command}: only TCP (1) and Mux (3) are carried`);
  const paddingLength = header[35] >> 4;
  const address = header.subarray(FIXED, header.length - paddingLength - 4);
  const target = command === COMMAND_MUX ? MUX_TARGET : decodeV2rayAddress(address);
  return {
    bodyIv: Buffer.from(header.subarray(1, 17)),
    bodyKey: Buffer.from(header.subarray(17, 33)),
    responseByte: header[33],
    option: header[34],
    security: header[35] & 0x0f,
    target,
  };
}
