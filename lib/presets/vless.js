import { MUX_COOL_TARGET } from '../wire/mux-cool.js';
import { protocolError } from '../wire/protocol-error.js';
import { decodeV2rayAddress, encodeV2rayAddress, v2rayAddressLength } from '../wire/v2ray-address.js';
import { UUID_ID_PARAM, uuidBytes } from './vmess/id.js';

// VLESS (V2Ray 4.30+), version 0, as V2Ray 4.34's outbound sends it with no
// flow: the client opens
//   version 0 | user UUID (16) | addons length 0 | command 1 (TCP)
//   | port (2, big-endian) | address type (1 IPv4, 2 domain, 3 IPv6) | address
// then payload; the server answers version 0 | addons length 0 ahead of the
// target's first bytes. No cipher and no framing: it runs inside TLS.
// Command 3 opens a Mux.Cool tunnel and ends the request, with no port or
// address: Xray's client sends it for v1.mux.cool, and its server reads it
// as that target, port 0.
const VERSION = 0;
const COMMAND_TCP = 1;
const COMMAND_MUX = 3;
const MUX_TARGET = Object.freeze({ host: MUX_COOL_TARGET.host, port: 0 });
const FIXED = 1 + 16 + 1;
const RESPONSE = Buffer.from([VERSION, 0]);

function encodeRequest(uuid, target) {
  if (target.host === MUX_COOL_TARGET.host)
    return Buffer.concat([Buffer.from([VERSION]), uuid, Buffer.from([0, COMMAND_MUX])]);
  return Buffer.concat([Buffer.from([VERSION]), uuid, Buffer.from([0, COMMAND_TCP]), encodeV2rayAddress(target)]);
}

// The request's length once `held` holds all of it, 0 while more may come;
// throws protocolError as soon as it cannot be one of this user's.
function requestLength(held, uuid) {
  if (held.length < 1) return 0;
  if (held[0] !== VERSION) throw protocolError(`unknown VLESS version ${held[0]}`);
  if (held.length < FIXED) return 0;
  if (!uuid.equals(held.subarray(1, 17))) throw protocolError('unknown VLESS user id');
  if (held[17] !== 0) throw protocolError(`VLESS addons (${held[17]} bytes: a flow) are not carried`);
  if (held.length < FIXED + 1) return 0;
  if (held[FIXED] === COMMAND_MUX) return FIXED + 1;
  if (held[FIXED] !== COMMAND_TCP)
    throw protocolError(`unsupported VLESS command ${held[FIXED]}: only TCP (1) and Mux (3) are carried`);
  const addressLength = v2rayAddressLength(held, FIXED + 1, 'VLESS request');
  if (addressLength === 0) return 0;
  const length = FIXED + 1 + addressLength;
  return held.length >= length ? length : 0;
}

function decodeTarget(request) {
  if (request[FIXED] === COMMAND_MUX) return MUX_TARGET;
  return decodeV2rayAddress(request.subarray(FIXED + 1));
}

export default {
  name: 'vless',
  summary: 'VLESS version 0 (V2Ray): a user UUID and the target, then the plain stream; meant inside tls',
  roles: ['address'],
  params: {
    id: UUID_ID_PARAM,
  },
  prepare(params) {
    const uuid = uuidBytes(params.id);
    return (connection) => {
      let requestSent = false;
      let request = Buffer.alloc(0);
      let responseSent = false;
      let response = Buffer.alloc(0);
      const answer = (push) => {
        if (responseSent) return;
        responseSent = true;
        push(RESPONSE);
      };
      return {
        clientEncode(data, push) {
          if (requestSent) return push(data);
          requestSent = true;
          push(Buffer.concat([encodeRequest(uuid, connection.target), data]));
        },
        clientDecode(data, push) {
          if (!response) return push(data);
          response = response.length === 0 ? data : Buffer.concat([response, data]);
          if (response.length < 2) return;
          if (response[0] !== VERSION)
            throw protocolError(`VLESS response version ${response[0]}, expected ${VERSION}`);
          const length = 2 + response[1];
          if (response.length < length) return;
          const rest = response.subarray(length);
          response = null;
          if (rest.length > 0) push(rest);
        },
        serverDecode(data, push) {
          if (!request) return push(data);
          request = request.length === 0 ? data : Buffer.concat([request, data]);
          const length = requestLength(request, uuid);
          if (length === 0) return;
          connection.onTarget(decodeTarget(request.subarray(0, length)));
          const rest = request.subarray(length);
          request = null;
          if (rest.length > 0) push(rest);
        },
        serverEncode(data, push) {
          if (request) return;
          answer(push);
          if (data.length > 0) push(data);
        },
        // A target that ends without a byte still gets its answer first.
        encodeEnded(push) {
          if (!request && !responseSent) answer(push);
        },
        // A client whose server ended before its whole answer was cut off.
        decodeEnded() {
          if (requestSent && response) throw protocolError('VLESS response ended before its header: truncated');
        },
      };
    };
  },
};
