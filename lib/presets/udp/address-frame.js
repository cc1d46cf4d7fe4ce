import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from '../../wire/address-header.js';
import { protocolError } from '../../wire/protocol-error.js';

// Shadowsocks' UDP datagram before any cipher: the SOCKS5-style address of
// the target (client to server) or of the source of a reply (server to
// client), then the payload, all in one packet.
export const MAX_ADDRESS_LENGTH = 1 + 1 + 255 + 2;

// A relay client addresses every datagram to one target, and a server's
// replies mostly come from one: the last header is kept, not made again.
let last = { host: null, port: null, header: null };

export function encodeAddressFrame(address, payload) {
  if (address.host !== last.host || address.port !== last.port)
    last = { host: address.host, port: address.port, header: encodeAddressHeader(address) };
  return Buffer.concat([last.header, payload]);
}

export function decodeAddressFrame(frame) {
  const length = addressHeaderLength((i) => frame[i], frame.length);
  if (length === 0) throw protocolError(`datagram of ${frame.length} bytes ends inside its address`);
  return { address: decodeAddressHeader(frame.subarray(0, length)), payload: frame.subarray(length) };
}

// ss-base's UDP form.
export const addressFrame = { overhead: MAX_ADDRESS_LENGTH, encode: encodeAddressFrame, decode: decodeAddressFrame };
