import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from '../wire/address-header.js';
import { targetHeaderStages } from '../wire/target-header.js';
import { addressFrame } from './udp/address-frame.js';

// Shadowsocks' framing without a cipher: the client opens each stream with
// the target's address header; the server reads it and connects there.
export default {
  name: 'ss-base',
  summary: 'Shadowsocks target address header (ATYP 1 IPv4, 3 domain, 4 IPv6, then port)',
  roles: ['address'],
  params: {},
  udp: () => ({ frame: addressFrame }),
  prepare() {
    return (connection) =>
      targetHeaderStages(connection, {
        encodeHeader: encodeAddressHeader,
        headerLength: (queue) => addressHeaderLength((index) => queue.peek(index), queue.length),
        decodeHeader: decodeAddressHeader,
      });
  },
};
