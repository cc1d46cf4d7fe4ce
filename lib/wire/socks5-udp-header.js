import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from './address-header.js';
import { protocolError } from './protocol-error.js';

// The header of every datagram of a SOCKS5 UDP association (RFC 1928,
// section 7): RSV (2 bytes), FRAG, then the address as in a request
// (ATYP, address, port) and the data. The address part is the Shadowsocks
// UDP address frame's own, which is why a relay client passes it on.
const FIXED = 3;
// RFC 1035: a name of more than 253 characters resolves nowhere.
const MAX_DOMAIN_BYTES = 253;
const ZERO = Buffer.alloc(FIXED);

// { address, data } of a datagram from the application; a protocolError
// for one no relay should pass on: too short, fragmented (FRAG != 0:
// reassembly is optional and ss-local does none either), an unknown
// address type, an address cut short or a name no resolver takes, port 0.
// RSV is not checked, as ss-local does not.
export function decodeSocks5UdpDatagram(datagram) {
  if (datagram.length < FIXED + 1)
    throw protocolError(`SOCKS5 UDP datagram of ${datagram.length} bytes, shorter than its header`);
  if (datagram[2] !== 0) throw protocolError(`SOCKS5 UDP fragment ${datagram[2]} (fragments are not reassembled)`);
  const rest = datagram.subarray(FIXED);
  const length = addressHeaderLength((at) => rest[at], rest.length);
  if (length === 0) throw protocolError(`SOCKS5 UDP datagram of ${datagram.length} bytes ends inside its address`);
  const header = rest.subarray(0, length);
  const address = decodeAddressHeader(header);
  // A name that is not valid UTF-8 would come out longer than its bytes
  // once written again (each bad byte as U+FFFD).
  if (header[0] === 3 && (length - 4 > MAX_DOMAIN_BYTES || Buffer.byteLength(address.host) !== length - 4)) {
    throw protocolError(`SOCKS5 UDP datagram names a host of ${length - 4} bytes that no resolver takes`);
  }
  if (address.port === 0) throw protocolError('SOCKS5 UDP datagram to port 0');
  return { address, data: rest.subarray(length) };
}

// A datagram to the application: what `source` sent.
export const encodeSocks5UdpDatagram = (source, data) => Buffer.concat([ZERO, encodeAddressHeader(source), data]);
