import { decodeAddressHeader, encodeAddressHeader } from './address-header.js';
import { protocolError } from './protocol-error.js';

// The target as V2Ray's protocols write it (VLESS's and VMess's requests,
// Mux.Cool's New and XUDP Keep frames):
//   port (2, big-endian) | address type (1 IPv4, 2 domain, 3 IPv6) | address
// with a domain's length byte first: the Shadowsocks address header's
// fields (address-header.js), port first and the types renumbered.
const TO_V2RAY_TYPE = { 1: 1, 3: 2, 4: 3 };
const TO_SS_TYPE = { 1: 1, 2: 3, 3: 4 };

export function encodeV2rayAddress(target) {
  const ss = encodeAddressHeader(target);
  return Buffer.concat([
    ss.subarray(ss.length - 2),
    Buffer.from([TO_V2RAY_TYPE[ss[0]]]),
    ss.subarray(1, ss.length - 2),
  ]);
}

// The length of the address that starts at `at` in `bytes` once they hold
// enough of it to tell (not necessarily all of it), else 0; throws
// protocolError at a type or name no address can have, saying `where`.
export function v2rayAddressLength(bytes, at, where) {
  if (bytes.length < at + 3) return 0;
  const type = bytes[at + 2];
  if (type === 1) return 3 + 4;
  if (type === 3) return 3 + 16;
  if (type !== 2) throw protocolError(`unknown address type ${type} in ${where}`);
  if (bytes.length < at + 4) return 0;
  if (bytes[at + 3] === 0) throw protocolError(`empty domain name in ${where}`);
  return 3 + 1 + bytes[at + 3];
}

// The target of a whole address, as v2rayAddressLength measured it.
export const decodeV2rayAddress = (address) =>
  decodeAddressHeader(
    Buffer.concat([Buffer.from([TO_SS_TYPE[address[2]]]), address.subarray(3), address.subarray(0, 2)]),
  );
