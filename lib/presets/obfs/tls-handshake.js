import { randomBytes, randomInt } from 'node:crypto';
import { protocolError } from '../../wire/protocol-error.js';
import { CHANGE_CIPHER_SPEC, HANDSHAKE, record, TLS_1_0, TLS_1_2 } from './tls-records.js';

// The handshake obfs-tls1.2-ticket plays: a TLS 1.2 session resumption with
// a session ticket, in the shape blinksocks 3.3.0 sends it. Nothing in it is
// cryptography: randoms, session ids, tickets and Finished are random bytes;
// only the framing (lengths, types) has to be right for the peer to parse.
export const CLIENT_HELLO = 0x01;
export const SERVER_HELLO = 0x02;
export const NEW_SESSION_TICKET = 0x04;
// blinksocks' server skips the client's ChangeCipherSpec and Finished as a
// fixed 43 bytes (6 + 5 + 32), so the client's Finished is 32 bytes long.
const CLIENT_FINISHED_LENGTH = 32;

const hex = (text) => Buffer.from(text, 'hex');
const u16 = (n) => {
  const b = Buffer.allocUnsafe(2);
  b.writeUInt16BE(n);
  return b;
};
const u24 = (n) => {
  const b = Buffer.allocUnsafe(3);
  b.writeUIntBE(n, 0, 3);
  return b;
};
const withLength16 = (...parts) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([u16(body.length), body]);
};
const extension = (type, ...body) => Buffer.concat([u16(type), withLength16(...body)]);
const handshake = (type, body) => Buffer.concat([Buffer.from([type]), u24(body.length), body]);

// A TLS random starts with the sender's clock, in seconds.
function helloRandom() {
  const random = randomBytes(32);
  random.writeUInt32BE(Math.floor(Date.now() / 1000) % 2 ** 32, 0);
  return random;
}
const sessionId = () => Buffer.concat([Buffer.from([32]), randomBytes(32)]);

// What a 2017 Chrome offered: ECDHE-GCM and ChaCha20 suites first, then
// the RSA ones; the list blinksocks copies.
const CIPHER_SUITES = hex('c02bc02fc02cc030cc14cc13c013c014009c009d002f0035000a');
const SIGNATURE_ALGORITHMS = hex('040308040401050308050501080606010201');

export function clientHello(serverName) {
  const name = Buffer.from(serverName);
  const extensions = Buffer.concat([
    extension(0xff01, hex('00')), // renegotiation_info, empty
    extension(0x0000, withLength16(Buffer.from([0]), withLength16(name))), // server_name: one host_name
    extension(0x0017), // extended_master_secret
    extension(0x0023, randomBytes(randomInt(200, 401))), // session_ticket: the "ticket" resumed
    extension(0x000d, withLength16(SIGNATURE_ALGORITHMS)),
    extension(0x0005, hex('0100000000')), // status_request: OCSP
    extension(0x0012), // signed_certificate_timestamp
    extension(0x7550), // channel_id
    extension(0x000b, hex('0100')), // ec_point_formats: uncompressed
    extension(0x000a, withLength16(hex('00170018'))), // supported_groups: P-256, P-384
  ]);
  const body = Buffer.concat([
    u16(TLS_1_2),
    helloRandom(),
    sessionId(),
    withLength16(CIPHER_SUITES),
    hex('0100'),
    withLength16(extensions),
  ]);
  // The record layer says TLS 1.0, the hello TLS 1.2, as browsers did.
  return record(HANDSHAKE, TLS_1_0, handshake(CLIENT_HELLO, body));
}

const RENEGOTIATION_INFO = 0xff01;
const EXTENDED_MASTER_SECRET = 0x0017;
const SESSION_TICKET = 0x0023;
const RENEGOTIATION_SCSV = 0x00ff;
const ECDHE_RSA_AES128_GCM_SHA256 = 0xc02f;
// What our client's hello offers (and blinksocks'), for a flight made
// without one.
const OUR_OFFER = {
  sessionId: Buffer.alloc(0),
  cipherSuites: [ECDHE_RSA_AES128_GCM_SHA256],
  extensions: new Set([RENEGOTIATION_INFO, EXTENDED_MASTER_SECRET, SESSION_TICKET]),
};

// TLS 1.3 suites (0x13xx), signalling values and GREASE name no TLS 1.2
// cipher a ServerHello could pick.
const isTls12Suite = (suite) =>
  suite >>> 8 !== 0x13 && suite !== RENEGOTIATION_SCSV && suite !== 0x5600 && (suite & 0x0f0f) !== 0x0a0a;

// ServerHello (accepting the ticket: ECDHE-RSA-AES128-GCM-SHA256, or the
// first TLS 1.2 suite offered without it), a new ticket, ChangeCipherSpec
// and an "encrypted" Finished: a resumed session needs no certificate,
// which is why this disguise resumes one. Well-formed for the hello it
// answers (`offer`, from readClientHello): it echoes the session id
// (RFC 5077 3.4), and carries only extensions the hello offered
// (RFC 5246 7.4.1.4: a client aborts on any other, as OpenSSL does with
// "unsolicited extension"), the ticket only when the hello offered one.
// blinksocks' flight adds status_request whatever the hello offered.
export function serverHandshake(offer = OUR_OFFER) {
  const suite = offer.cipherSuites.includes(ECDHE_RSA_AES128_GCM_SHA256)
    ? ECDHE_RSA_AES128_GCM_SHA256
    : offer.cipherSuites.find(isTls12Suite);
  if (suite === undefined) throw protocolError('TLS ClientHello offers no TLS 1.2 cipher suite');
  const offered = (type) => offer.extensions.has(type);
  const extensions = Buffer.concat([
    offered(RENEGOTIATION_INFO) || offer.cipherSuites.includes(RENEGOTIATION_SCSV)
      ? extension(RENEGOTIATION_INFO, hex('00'))
      : Buffer.alloc(0),
    offered(EXTENDED_MASTER_SECRET) ? extension(EXTENDED_MASTER_SECRET) : Buffer.alloc(0),
    offered(SESSION_TICKET) ? extension(SESSION_TICKET) : Buffer.alloc(0),
  ]);
  const session =
    offer.sessionId.length > 0 ? Buffer.concat([Buffer.from([offer.sessionId.length]), offer.sessionId]) : sessionId();
  const hello = Buffer.concat([u16(TLS_1_2), helloRandom(), session, u16(suite), hex('00'), withLength16(extensions)]);
  const ticket = Buffer.concat([hex('000004b0'), withLength16(randomBytes(randomInt(200, 256)))]); // lifetime 1200 s
  return Buffer.concat([
    record(HANDSHAKE, TLS_1_2, handshake(SERVER_HELLO, hello)),
    offered(SESSION_TICKET) ? record(HANDSHAKE, TLS_1_2, handshake(NEW_SESSION_TICKET, ticket)) : Buffer.alloc(0),
    changeCipherSpec(),
    // 40 bytes: what AES-128-GCM makes of a Finished (8 nonce, 16 message, 16 tag).
    record(HANDSHAKE, TLS_1_2, randomBytes(40)),
  ]);
}

export function clientFinish() {
  return Buffer.concat([changeCipherSpec(), record(HANDSHAKE, TLS_1_2, randomBytes(CLIENT_FINISHED_LENGTH))]);
}

const changeCipherSpec = () => record(CHANGE_CIPHER_SPEC, TLS_1_2, Buffer.from([1]));
