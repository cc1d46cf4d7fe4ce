import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from '../../wire/address-header.js';
import { protocolError } from '../../wire/protocol-error.js';

// SIP022 3.1.3, the plaintext of the header chunks (each sealed on its own):
//   request fixed-length:   type 0 | u64be timestamp | u16be length of the next chunk
//   request variable-length: SOCKS address | u16be padding length | padding | initial payload
//   response fixed-length:  type 1 | u64be timestamp | request salt | u16be length of the next chunk
export const REQUEST_TYPE = 0;
export const RESPONSE_TYPE = 1;
export const REQUEST_FIXED_LENGTH = 1 + 8 + 2;
export const responseFixedLength = (saltLength) => 1 + 8 + saltLength + 2;
export const MAX_PADDING = 900;
// Messages more than 30 s away from this machine's clock are replays.
export const MAX_CLOCK_SKEW_S = 30;

export const unixSeconds = () => Math.floor(Date.now() / 1000);

export function encodeRequestFixed(variableLength, now = unixSeconds()) {
  const header = Buffer.alloc(REQUEST_FIXED_LENGTH);
  header[0] = REQUEST_TYPE;
  header.writeBigUInt64BE(BigInt(now), 1);
  header.writeUInt16BE(variableLength, 9);
  return header;
}

export function encodeResponseFixed(requestSalt, firstLength, now = unixSeconds()) {
  const header = Buffer.alloc(responseFixedLength(requestSalt.length));
  header[0] = RESPONSE_TYPE;
  header.writeBigUInt64BE(BigInt(now), 1);
  requestSalt.copy(header, 9);
  header.writeUInt16BE(firstLength, 9 + requestSalt.length);
  return header;
}

// The variable-length header with the initial payload it carries. Without
// payload the spec requires padding: 1 to 900 random bytes' worth (their
// content need not be random: the chunk is encrypted). shadowsocks-rust 1.25
// draws 0 to 900 here (get_aead_2022_padding_size), so one in 901 of its
// requests without payload (a server-first protocol) has neither, and its own
// ssserver refuses it as ours does: SIP022 says "non-zero", we follow it.
export function encodeRequestVariable(target, payload, randomInt) {
  const address = encodeAddressHeader(target);
  const paddingLength = payload.length > 0 ? 0 : 1 + randomInt(MAX_PADDING);
  const header = Buffer.alloc(address.length + 2 + paddingLength + payload.length);
  address.copy(header, 0);
  header.writeUInt16BE(paddingLength, address.length);
  payload.copy(header, address.length + 2 + paddingLength);
  return header;
}

// Type and timestamp checks shared by both fixed headers.
function checkTypeAndTime(header, type, now) {
  if (header[0] !== type) throw protocolError(`header type ${header[0]}, expected ${type}`);
  const timestamp = header.readBigUInt64BE(1);
  const skew = timestamp - BigInt(now);
  if (skew > MAX_CLOCK_SKEW_S || skew < -MAX_CLOCK_SKEW_S) {
    throw protocolError(
      `header timestamp ${timestamp} is ${skew} s from this clock (over ${MAX_CLOCK_SKEW_S} s: a replay)`,
    );
  }
}

// Returns the length of the variable-length header chunk.
export function decodeRequestFixed(header, now = unixSeconds()) {
  checkTypeAndTime(header, REQUEST_TYPE, now);
  return header.readUInt16BE(9);
}

// Returns { requestSalt, firstLength }.
export function decodeResponseFixed(header, saltLength, now = unixSeconds()) {
  checkTypeAndTime(header, RESPONSE_TYPE, now);
  return { requestSalt: header.subarray(9, 9 + saltLength), firstLength: header.readUInt16BE(9 + saltLength) };
}

// Returns { target, payload }. The address and padding must lie inside the
// chunk, and a header with neither payload nor padding is refused (3.1.3).
export function decodeRequestVariable(header) {
  const addressLength = addressHeaderLength((i) => header[i], header.length);
  if (addressLength === 0 || addressLength + 2 > header.length)
    throw protocolError('variable-length header ends inside the address');
  const paddingLength = header.readUInt16BE(addressLength);
  if (paddingLength > MAX_PADDING) throw protocolError(`padding length ${paddingLength} exceeds ${MAX_PADDING}`);
  const payloadStart = addressLength + 2 + paddingLength;
  if (payloadStart > header.length) throw protocolError('padding extends beyond the header chunk');
  const payload = header.subarray(payloadStart);
  if (payload.length === 0 && paddingLength === 0)
    throw protocolError('request header with neither initial payload nor padding');
  return { target: decodeAddressHeader(header.subarray(0, addressLength)), payload };
}
