import { randomInt } from 'node:crypto';
import { protocolError } from '../../wire/protocol-error.js';
import { readClientHello } from './tls-client-hello.js';
import {
  CLIENT_HELLO,
  clientFinish,
  clientHello,
  NEW_SESSION_TICKET,
  SERVER_HELLO,
  serverHandshake,
} from './tls-handshake.js';
import {
  APPLICATION_DATA,
  applicationData,
  CHANGE_CIPHER_SPEC,
  createRecordReader,
  HANDSHAKE,
  TLS_1_0,
  TLS_1_2,
} from './tls-records.js';

// blinksocks' obfs-tls1.2-ticket: the stream looks like a TLS 1.2 session
// resumed from a ticket, then application-data records. The client sends its
// ClientHello at once and holds the stream's first bytes until the server's
// hello (ServerHello, NewSessionTicket, ChangeCipherSpec, Finished) is in;
// then its own ChangeCipherSpec and Finished go out with the held bytes.
//
// What the client may hold while the server has not answered. The relay
// stops reading the local side once a stage holds more than its bound
// (HOLD_MARK_BYTES in relay/bridge.js, 1 MB), so a sender faster than the
// server's answer waits for it; only a reader that ignores connection.holding
// could reach this, and a server that never answers must not make it buffer
// without end.
const MAX_HELD_BYTES = 8 * 1024 * 1024;
const MAX_NAME_BYTES = 255;

function sniProblem(sni) {
  const names = Array.isArray(sni) ? sni : [sni];
  const valid =
    names.length > 0 &&
    names.every((name) => typeof name === 'string' && name !== '' && Buffer.byteLength(name) <= MAX_NAME_BYTES);
  if (!valid)
    return `must be a host name or a non-empty array of host names (1 to ${MAX_NAME_BYTES} bytes each), e.g. "www.example.com"`;
  return undefined;
}

const ENDPOINT = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/;
function parseEndpoint(text) {
  const match = typeof text === 'string' ? ENDPOINT.exec(text) : null;
  const port = match ? Number(match[3]) : 0;
  return port >= 1 && port <= 65535 ? { host: match[1] ?? match[2], port } : null;
}
const fallbackProblem = (value) =>
  parseEndpoint(value) ? undefined : 'must be HOST:PORT of a TLS server, e.g. "127.0.0.1:443" or "[::1]:443"';

// A handshake message inside a record: [type][length, 3 bytes][body].
const handshakeMessage = (type, name) => (body) => {
  if (body.length < 4 || body[0] !== type || body.readUIntBE(1, 3) !== body.length - 4) {
    throw protocolError(`expected a TLS ${name} in this handshake record`);
  }
};
const changeCipherSpecMessage = (body) => {
  if (body.length !== 1 || body[0] !== 1) throw protocolError('malformed TLS ChangeCipherSpec');
};
const finishedMessage = (body) => {
  if (body.length === 0) throw protocolError('empty TLS Finished');
};

// What each side must read, in order, before application data.
const FROM_CLIENT = [
  { type: HANDSHAKE, version: TLS_1_0, check: handshakeMessage(CLIENT_HELLO, 'ClientHello') },
  { type: CHANGE_CIPHER_SPEC, version: TLS_1_2, check: changeCipherSpecMessage },
  { type: HANDSHAKE, version: TLS_1_2, check: finishedMessage },
];
const FROM_SERVER = [
  { type: HANDSHAKE, version: TLS_1_2, check: handshakeMessage(SERVER_HELLO, 'ServerHello') },
  { type: HANDSHAKE, version: TLS_1_2, check: handshakeMessage(NEW_SESSION_TICKET, 'NewSessionTicket') },
  { type: CHANGE_CIPHER_SPEC, version: TLS_1_2, check: changeCipherSpecMessage },
  { type: HANDSHAKE, version: TLS_1_2, check: finishedMessage },
];
const APPLICATION_RECORD = { type: APPLICATION_DATA, version: TLS_1_2 };

// A decode stage: the handshake records in `steps` (calling
// `afterStep(i, body)` once step i is read; it returns true when the stage
// is done with this connection, which then reads nothing more), then the
// payloads of application-data records.
function recordDecoder(steps, afterStep) {
  const reader = createRecordReader();
  let step = 0;
  let done = false;
  const decode = (data, push) => {
    if (done) return;
    reader.push(data);
    for (;;) {
      const expected = step < steps.length ? steps[step] : APPLICATION_RECORD;
      const record = reader.read(expected);
      if (!record) return;
      if (step < steps.length) {
        expected.check(record.body);
        done = afterStep(step++, record.body) === true;
        if (done) return;
      } else if (record.body.length > 0) {
        push(record.body);
      }
    }
  };
  // A FIN inside a record is a cut stream, not its end.
  decode.ended = () => {
    if (reader.holding()) throw protocolError('stream ended inside a TLS record: truncated');
  };
  return decode;
}

export default {
  name: 'obfs-tls1.2-ticket',
  summary:
    'blinksocks TLS 1.2 disguise: a session-ticket resumption handshake (ClientHello with SNI, ServerHello), then application-data records; the server answers only its own server names',
  roles: ['disguise'],
  joinsWrites: true,
  params: {
    sni: {
      required: true,
      description:
        'the server name (SNI) the ClientHello shows, or an array of them to pick from per connection, e.g. "www.example.com"',
      check: sniProblem,
    },
    fallback: {
      required: false,
      description:
        'server side: HOST:PORT of a real TLS server that gets, untouched, every connection whose ClientHello names none of the sni values (without it they are refused as any probe is: no answer, reset at the handshake timeout)',
      check: fallbackProblem,
    },
  },
  prepare(params) {
    const names = Array.isArray(params.sni) ? params.sni : [params.sni];
    const ownNames = new Set(names.map((name) => name.toLowerCase()));
    const fallback = params.fallback === undefined ? null : parseEndpoint(params.fallback);
    return (connection) => {
      let helloSent = false;
      let held = [];
      let heldBytes = 0;
      const pushRecords = (data, push) => {
        for (const piece of applicationData(data)) push(piece);
      };
      const clientDecode = recordDecoder(FROM_SERVER, (step) => {
        if (step === FROM_SERVER.length - 1) release();
      });
      // What the client sent until its hello was read: a fallback gets it
      // all, as if it had been the first to read the connection.
      let received = [];
      // Only a hello for one of the chain's names is answered: any other
      // hello would otherwise learn, from one packet, what this server is.
      const answerHello = (body) => {
        const hello = readClientHello(body);
        if (!hello.serverNames.some((name) => ownNames.has(name.toLowerCase()))) {
          const shown = hello.serverNames.length > 0 ? `server name ${hello.serverNames.join(', ')}` : 'no server name';
          if (!fallback) throw protocolError(`TLS ClientHello with ${shown}: not one of this chain's sni values`);
          connection.divert(fallback, Buffer.concat(received));
          received = null;
          return true;
        }
        received = null;
        connection.reply(serverHandshake(hello));
        return false;
      };
      const readFromClient = recordDecoder(FROM_CLIENT, (step, body) => step === 0 && answerHello(body));
      const serverDecode = (data, push) => {
        received?.push(data);
        readFromClient(data, push);
      };
      serverDecode.ended = readFromClient.ended;
      const release = () => {
        // One write: blinksocks' server expects ChangeCipherSpec and
        // Finished at the start of one read.
        connection.reply(Buffer.concat([clientFinish(), ...applicationData(Buffer.concat(held))]));
        held = null;
        connection.holding(0);
      };
      return {
        clientEncode(data, push) {
          if (!held) return pushRecords(data, push);
          if (!helloSent) {
            helloSent = true;
            push(clientHello(names[randomInt(names.length)]));
            // A peer in the same process (the in-memory ceiling) may have
            // answered within that push and released the hold already.
            if (!held) return pushRecords(data, push);
          }
          if (data.length === 0) return;
          heldBytes += data.length;
          if (heldBytes > MAX_HELD_BYTES)
            throw protocolError(`no TLS ServerHello while ${MAX_HELD_BYTES} bytes waited to be sent`);
          held.push(data);
          connection.holding(heldBytes);
        },
        clientDecode,
        serverDecode,
        serverEncode: pushRecords,
        // A connection decodes in one role only: the other reader holds nothing.
        decodeEnded() {
          clientDecode.ended();
          serverDecode.ended();
        },
      };
    };
  },
};
