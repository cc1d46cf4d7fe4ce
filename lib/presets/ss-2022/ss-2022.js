import { randomInt } from 'node:crypto';
import { AEAD_2022_METHODS, deriveSessionSubkey, newPsk, parsePsk } from '../../crypto/aead-2022-methods.js';
import { randomView } from '../../crypto/random-pool.js';
import { createByteQueue } from '../../wire/byte-queue.js';
import { protocolError } from '../../wire/protocol-error.js';
import { createStreamRecords, MAX_PAYLOAD, TAG_LENGTH } from './chunks.js';
import {
  decodeRequestFixed,
  decodeRequestVariable,
  decodeResponseFixed,
  encodeRequestFixed,
  encodeRequestVariable,
  encodeResponseFixed,
  REQUEST_FIXED_LENGTH,
  responseFixedLength,
} from './headers.js';
import { createSaltPool } from './salt-pool.js';
import { ss2022UdpSessions } from './udp-sessions.js';

// Shadowsocks 2022 (SIP022), TCP. A request stream is
//   salt | sealed fixed header | sealed variable header (target, padding,
//   initial payload) | length and payload chunks ...
// and a response stream
//   salt | sealed fixed header (with the request's salt) | sealed first
//   payload | length and payload chunks ...
// The target travels inside the request header, so this preset is the
// chain's address and cipher at once: [{ name: 'ss-2022', params: { method } }].
//
// Replay protection (3.1.4), both directions: a header more than 30 s from
// this clock is refused, and so is a salt seen in the last 60 s by this
// process (its own pool, exact), or by the relay's server-wide filter
// (connection.salts). A response must name the salt of the request it answers.
//
// Probing (3.1.3): the salt and fixed header must come in the first read, and
// any fault before the target is named is a protocolError, which the relay
// server meets alike whatever the bytes, so a probe cannot learn how many
// it consumed.
const INITIAL_PAYLOAD = MAX_PAYLOAD - 2 - 259; // room for the longest address and the padding length

export default {
  name: 'ss-2022',
  summary:
    'Shadowsocks 2022 (SIP022): base64 pre-shared key, BLAKE3 session subkeys, timestamped headers with padding, replay-checked salts, chunks of up to 0xFFFF bytes',
  roles: ['address', 'cipher'],
  authenticated: true,
  params: {
    method: { required: true, values: Object.keys(AEAD_2022_METHODS) },
  },
  // The run's key must be this method's PSK, not a password (2.1).
  password: {
    problem: (params, password) => parsePsk(params.method, password).problem,
    generate: (params) => newPsk(params.method),
  },
  udp(params, { password }) {
    const { psk, problem } = parsePsk(params.method, password);
    if (problem) throw new Error(problem);
    return { sessions: ss2022UdpSessions(params.method, psk) };
  },
  prepare(params, { password }) {
    const { keyLength: saltLength, aead } = AEAD_2022_METHODS[params.method];
    const { psk, problem } = parsePsk(params.method, password);
    if (problem) throw new Error(problem);
    const pool = createSaltPool();
    const recordsFor = (salt) => {
      const subkey = deriveSessionSubkey(psk, salt);
      return createStreamRecords(aead, subkey, aead.importKey(subkey));
    };
    const refuseReplay = (salt, connection) => {
      if (!pool.add(salt) || !connection.salts.add(salt)) throw protocolError('salt seen before: a replay');
    };
    const firstRead = (queue, length, what) => {
      if (queue.length < length) {
        throw protocolError(
          `first read of ${queue.length} bytes is shorter than the salt and ${what} (${length}), which SIP022 sends in one write`,
        );
      }
    };
    // A FIN inside a header or a chunk is a cut stream, not its end: the
    // relay passes it on as a reset (decodeEnded).
    const endedInside = (queue, started, openBody) => {
      if (queue.length > 0 || (started && !openBody) || openBody?.awaitingPayload()) {
        throw protocolError('stream ended inside a record: truncated');
      }
    };

    // Client: the request stream, salt and both header chunks in one push.
    const requestEncoder = (connection, shared) => {
      let sealBody = null;
      return (data, push) => {
        if (sealBody) return sealBody(data, push);
        const salt = randomView(saltLength);
        connection.salts.add(salt);
        shared.requestSalt = salt;
        const records = recordsFor(salt);
        const initial = data.subarray(0, INITIAL_PAYLOAD);
        const variable = encodeRequestVariable(connection.target, initial, randomInt);
        push(Buffer.concat([salt, records.seal(0, encodeRequestFixed(variable.length)), records.seal(1, variable)]));
        sealBody = records.sealer();
        sealBody(data.subarray(initial.length), push);
      };
    };

    // A stream's decoder: the salt and fixed-length header (readFixed: the
    // second record's length), the second record (readSecond: the payload
    // it holds), then the body. Nothing is kept until the fixed header
    // passed every check (then accepted(salt)); ready() throws while no
    // stream may come.
    const streamDecoder = (
      connection,
      { ready = () => {}, fixedRecord, readFixed, accepted = () => {}, secondRecord, readSecond },
    ) => {
      const queue = createByteQueue();
      let records = null;
      let secondLength = -1;
      let openBody = null;
      const decode = (data, push) => {
        queue.push(data);
        if (openBody) return openBody(queue, push);
        if (!records) {
          ready();
          firstRead(queue, saltLength + fixedRecord.length, `fixed-length ${fixedRecord.what}`);
          const salt = Buffer.from(queue.take(saltLength));
          const candidate = recordsFor(salt);
          secondLength = readFixed(candidate.open(0, queue.take(fixedRecord.length), fixedRecord.what));
          refuseReplay(salt, connection);
          accepted(salt);
          records = candidate;
        }
        const record = queue.take(secondLength + TAG_LENGTH);
        if (!record) return;
        const payload = readSecond(records.open(1, record, secondRecord));
        openBody = records.opener();
        if (payload.length > 0) push(payload);
        openBody(queue, push);
      };
      decode.ended = () => endedInside(queue, records !== null, openBody);
      return decode;
    };

    // Server: reads the request header, names the target, then the body.
    const requestDecoder = (connection, shared) =>
      streamDecoder(connection, {
        fixedRecord: { length: REQUEST_FIXED_LENGTH + TAG_LENGTH, what: 'request header' },
        readFixed: decodeRequestFixed,
        accepted: (salt) => {
          shared.requestSalt = salt;
        },
        secondRecord: 'variable-length request header',
        readSecond: (variable) => {
          const { target, payload } = decodeRequestVariable(variable);
          connection.onTarget(target);
          return payload;
        },
      });

    // Server: the response stream, sent with the first bytes the target
    // returns (3.1.3: a response header never goes alone).
    const responseEncoder = (connection, shared) => {
      let sealBody = null;
      return (data, push) => {
        if (sealBody) return sealBody(data, push);
        if (data.length === 0) return;
        const salt = randomView(saltLength);
        connection.salts.add(salt);
        const records = recordsFor(salt);
        const first = data.subarray(0, MAX_PAYLOAD);
        push(
          Buffer.concat([
            salt,
            records.seal(0, encodeResponseFixed(shared.requestSalt, first.length)),
            records.seal(1, first),
          ]),
        );
        sealBody = records.sealer();
        sealBody(data.subarray(first.length), push);
      };
    };

    // Client: checks the response header against this connection's request.
    const responseDecoder = (connection, shared) =>
      streamDecoder(connection, {
        ready: () => {
          if (!shared.requestSalt) throw protocolError('a response before any request');
        },
        fixedRecord: { length: responseFixedLength(saltLength) + TAG_LENGTH, what: 'response header' },
        readFixed: (fixed) => {
          const header = decodeResponseFixed(fixed, saltLength);
          if (!header.requestSalt.equals(shared.requestSalt))
            throw protocolError("response names another request's salt");
          return header.firstLength;
        },
        secondRecord: 'first response payload',
        readSecond: (first) => first,
      });

    return (connection) => {
      const shared = { requestSalt: null };
      const serverDecode = requestDecoder(connection, shared);
      const clientDecode = responseDecoder(connection, shared);
      return {
        clientEncode: requestEncoder(connection, shared),
        serverDecode,
        serverEncode: responseEncoder(connection, shared),
        clientDecode,
        // A connection decodes in one role only: the other decoder holds nothing.
        decodeEnded: () => {
          serverDecode.ended();
          clientDecode.ended();
        },
      };
    };
  },
};
