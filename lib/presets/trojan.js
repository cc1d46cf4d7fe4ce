import { createHash } from 'node:crypto';
import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from '../wire/address-header.js';
import { parseHostPort } from '../wire/host-port.js';
import { protocolError } from '../wire/protocol-error.js';

// Trojan (trojan-gfw's protocol, which V2Ray also speaks): the client opens
//   hex(SHA-224(password)) (56) | CRLF | command | SOCKS5 address | CRLF
// then payload, both ways, with no framing and no answer. It has no cipher
// of its own: it is meant to run inside TLS (a chain ending in tls). A
// server with a fallback hands a connection whose request does not check
// out to that server, every byte it sent included, as trojan-gfw's
// remote_addr does: a prober meets a web server, not a refusal.
const CRLF = Buffer.from('\r\n');
const HASH_LENGTH = 56;
const COMMAND_CONNECT = 1;
// Hash, CRLF, command, the longest address (a 255-byte name) and CRLF.
const MAX_REQUEST_LENGTH = HASH_LENGTH + 2 + 1 + 259 + 2;

const passwordHash = (password) => Buffer.from(createHash('sha224').update(password).digest('hex'), 'ascii');

function encodeRequest(hash, target) {
  return Buffer.concat([hash, CRLF, Buffer.from([COMMAND_CONNECT]), encodeAddressHeader(target), CRLF]);
}

// The request's length once `held` holds all of it, 0 while it may still
// be arriving; throws protocolError as soon as it cannot be one for `hash`.
function requestLength(held, hash) {
  const prefix = HASH_LENGTH + 2;
  for (let i = 0; i < Math.min(held.length, prefix); i++) {
    const expected = i < HASH_LENGTH ? hash[i] : CRLF[i - HASH_LENGTH];
    if (held[i] !== expected)
      throw protocolError(
        i < HASH_LENGTH ? 'not a trojan request for this password' : 'no CRLF after the password hash',
      );
  }
  if (held.length < prefix + 1) return 0;
  if (held[prefix] !== COMMAND_CONNECT)
    throw protocolError(`unsupported command ${held[prefix]}: only CONNECT (1) is carried`);
  const addressLength = addressHeaderLength((i) => held[prefix + 1 + i], held.length - prefix - 1);
  if (addressLength === 0) return 0;
  const length = prefix + 1 + addressLength + 2;
  if (held.length < length) return 0;
  if (held[length - 2] !== CRLF[0] || held[length - 1] !== CRLF[1]) throw protocolError('no CRLF after the address');
  return length;
}

const decodeTarget = (request) => decodeAddressHeader(request.subarray(HASH_LENGTH + 3, request.length - 2));

const fallbackCheck = (value) =>
  parseHostPort(value)
    ? undefined
    : `must be host:port, e.g. "127.0.0.1:80" (the server that gets connections whose request is not a trojan one), not ${JSON.stringify(value)}`;

export default {
  name: 'trojan',
  summary:
    'Trojan: hex SHA-224 of the password, the target, then the plain stream; meant inside tls; the server hands bad requests to its fallback',
  roles: ['address'],
  params: {
    fallback: {
      required: false,
      description: 'server: host:port that gets every connection whose request is not a valid one for this password',
      check: fallbackCheck,
    },
  },
  prepare(params, { password }) {
    const hash = passwordHash(password);
    const fallback = params.fallback ? parseHostPort(params.fallback) : null;
    return (connection) => {
      let sent = false;
      let held = Buffer.alloc(0);
      return {
        clientEncode(data, push) {
          if (sent) return push(data);
          sent = true;
          push(Buffer.concat([encodeRequest(hash, connection.target), data]));
        },
        serverDecode(data, push) {
          if (!held) return push(data);
          held = held.length === 0 ? data : Buffer.concat([held, data]);
          let length;
          try {
            length = requestLength(held, hash);
            if (length === 0 && held.length >= MAX_REQUEST_LENGTH)
              throw protocolError(`request longer than ${MAX_REQUEST_LENGTH} bytes`);
          } catch (error) {
            if (!fallback) throw error;
            const all = held;
            held = null;
            connection.onTarget(fallback);
            return push(all);
          }
          if (length === 0) return;
          connection.onTarget(decodeTarget(held.subarray(0, length)));
          const rest = held.subarray(length);
          held = null;
          if (rest.length > 0) push(rest);
        },
      };
    };
  },
};
