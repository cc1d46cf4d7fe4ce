import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from './address-header.js';
import { createByteQueue } from './byte-queue.js';

// Shadowsocks' framing without a cipher: the client opens each stream with
// the target's address header; the server reads it and connects there.
export default {
  name: 'ss-base',
  summary: 'Shadowsocks target address header (ATYP 1 IPv4, 3 domain, 4 IPv6, then port)',
  roles: ['address'],
  params: {},
  prepare() {
    return (connection) => {
      let headerSent = false;
      let headerQueue = createByteQueue();
      return {
        clientEncode(data, push) {
          if (headerSent) return push(data);
          headerSent = true;
          push(Buffer.concat([encodeAddressHeader(connection.target), data]));
        },
        serverDecode(data, push) {
          if (!headerQueue) return push(data);
          headerQueue.push(data);
          const length = addressHeaderLength(headerQueue.peek, headerQueue.length);
          if (length === 0) return;
          connection.onTarget(decodeAddressHeader(headerQueue.take(length)));
          const rest = headerQueue.takeAll();
          headerQueue = null;
          if (rest.length > 0) push(rest);
        },
      };
    };
  },
};
