import { randomBytes } from 'node:crypto';
import { protocolError } from '../../wire/protocol-error.js';

// The hellos of simple-obfs' obfs=tls (src/obfs_tls.c of 0.0.5): a TLS 1.2
// ClientHello whose SessionTicket extension carries the client's first
// bytes; a ServerHello and a ChangeCipherSpec, then a handshake record (what
// would be the encrypted Finished) carrying the server's first bytes.
export const HANDSHAKE = 0x16;
export const APPLICATION_DATA = 0x17;
export const RECORD_HEADER = 5;
// TLS's limit on a record's plaintext; obfs-server and obfs-local refuse a
// data record longer than this.
export const MAX_RECORD = 0x4000;
// obfs-local wraps a whole first read of up to 16384 bytes in its
// ClientHello, which can pass MAX_RECORD; TLS allows records 2048 bytes
// over it (for ciphertext), which covers that.
export const MAX_HELLO_RECORD = MAX_RECORD + 2048;

const SESSION_ID_LENGTH = 32;
const EXT_SERVER_NAME = 0x0000;
const EXT_SESSION_TICKET = 0x0023;

// obfs-local's cipher suites, and its extensions after the SNI, byte for byte.
const CIPHER_SUITES = Buffer.from(
  'c02cc030009fcca9cca8ccaac02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f00ff',
  'hex',
);
const OTHER_EXTENSIONS = Buffer.from(
  '000b000403010002' + // ec_point_formats: uncompressed and both compressed forms
    '000a000a0008001d001700190018' + // supported_groups: x25519, secp256r1, secp521r1, secp384r1
    '000d0020001e060106020603050105020503040104020403030103020303020102020203' + // signature_algorithms
    '00160000' + // encrypt_then_mac
    '00170000', // extended_master_secret
  'hex',
);
// The ServerHello's extensions: renegotiation_info, extended_master_secret,
// ec_point_formats (uncompressed).
const SERVER_EXTENSIONS = Buffer.from('ff01000100' + '00170000' + '000b00020100', 'hex');
// The ChangeCipherSpec record after the ServerHello, exactly.
export const CHANGE_CIPHER_SPEC = Buffer.from('140303000101', 'hex');
const CIPHER_SUITE = 0xcca8; // ECDHE-RSA-CHACHA20-POLY1305

// From the record header to the extensions' length field, and the headers
// of the two extensions around the ticket.
const CLIENT_HELLO_HEAD = RECORD_HEADER + 4 + 2 + 32 + 1 + SESSION_ID_LENGTH + 2 + CIPHER_SUITES.length + 2 + 2;
const TICKET_HEADER = 4;
const SERVER_NAME_HEADER = 9;
const clientHelloOverhead = (host) =>
  CLIENT_HELLO_HEAD + TICKET_HEADER + SERVER_NAME_HEADER + host.length + OTHER_EXTENSIONS.length;

// The most of a stream's first bytes one ClientHello carries for `host`:
// as much as keeps the hello within MAX_CLIENT_HELLO bytes. obfs-server
// takes a hello apart correctly only when its first read holds all of it:
// when the read ends after the ticket but before the extensions that follow
// it, it drops the ticket's last bytes and passes on as many bytes of the
// extensions in their place. A hello this small comes in one TCP segment.
export const MAX_CLIENT_HELLO = 1024;
export const maxTicket = (host) => MAX_CLIENT_HELLO - clientHelloOverhead(host);

function writer(size) {
  const buffer = Buffer.alloc(size);
  let at = 0;
  return {
    buffer,
    u8: (value) => (at = buffer.writeUInt8(value, at)),
    u16: (value) => (at = buffer.writeUInt16BE(value, at)),
    bytes: (bytes) => (at += bytes.copy(buffer, at)),
  };
}

// 32 random bytes, the first four the time in seconds, as both hellos have.
export function helloRandom() {
  const random = randomBytes(32);
  random.writeUInt32BE(Math.floor(Date.now() / 1000) >>> 0, 0);
  return random;
}

// What obfs-local sends: [the hello up to the ticket, the ticket, the rest]
// (the ticket between them is never copied).
export function clientHello({ host, ticket, sessionId, random }) {
  const name = Buffer.from(host, 'latin1');
  const recordLength = clientHelloOverhead(host) + ticket.length - RECORD_HEADER;
  const head = writer(CLIENT_HELLO_HEAD + TICKET_HEADER);
  head.u8(HANDSHAKE);
  head.u16(0x0301);
  head.u16(recordLength);
  head.u8(1); // client_hello, with a 24-bit length
  head.u8(0);
  head.u16(recordLength - 4);
  head.u16(0x0303);
  head.bytes(random);
  head.u8(SESSION_ID_LENGTH);
  head.bytes(sessionId);
  head.u16(CIPHER_SUITES.length);
  head.bytes(CIPHER_SUITES);
  head.u8(1); // one compression method: null
  head.u8(0);
  head.u16(recordLength - (CLIENT_HELLO_HEAD - RECORD_HEADER));
  head.u16(EXT_SESSION_TICKET);
  head.u16(ticket.length);
  const tail = writer(SERVER_NAME_HEADER + name.length + OTHER_EXTENSIONS.length);
  tail.u16(EXT_SERVER_NAME);
  tail.u16(name.length + 5);
  tail.u16(name.length + 3);
  tail.u8(0); // host_name
  tail.u16(name.length);
  tail.bytes(name);
  tail.bytes(OTHER_EXTENSIONS);
  return [head.buffer, ticket, tail.buffer];
}

// What obfs-server sends before its first bytes, which follow in one buffer:
// the ServerHello echoing the client's session id, ChangeCipherSpec, and the
// header of the handshake record that carries `data`. obfs-server writes 0
// in the ServerHello's extensions length though 15 bytes of extensions
// follow; this writes 15, as TLS has it (obfs-local reads neither).
export function serverFlight({ sessionId, random, data }) {
  const flight = writer(
    RECORD_HEADER +
      4 +
      2 +
      32 +
      1 +
      SESSION_ID_LENGTH +
      2 +
      1 +
      2 +
      SERVER_EXTENSIONS.length +
      CHANGE_CIPHER_SPEC.length +
      RECORD_HEADER +
      data.length,
  );
  const helloLength = 4 + 2 + 32 + 1 + SESSION_ID_LENGTH + 2 + 1 + 2 + SERVER_EXTENSIONS.length;
  flight.u8(HANDSHAKE);
  flight.u16(0x0301);
  flight.u16(helloLength);
  flight.u8(2); // server_hello
  flight.u8(0);
  flight.u16(helloLength - 4);
  flight.u16(0x0303);
  flight.bytes(random);
  flight.u8(SESSION_ID_LENGTH);
  flight.bytes(sessionId);
  flight.u16(CIPHER_SUITE);
  flight.u8(0);
  flight.u16(SERVER_EXTENSIONS.length);
  flight.bytes(SERVER_EXTENSIONS);
  flight.bytes(CHANGE_CIPHER_SPEC);
  flight.u8(HANDSHAKE);
  flight.u16(0x0303);
  flight.u16(data.length);
  flight.bytes(data);
  return flight.buffer;
}

// A TLS handshake record's header: type 22, version 3.1 to 3.3, and a
// length up to `max`. Returns the length.
export function handshakeRecordLength(header, max, what) {
  if (header[0] !== HANDSHAKE || header[1] !== 3 || header[2] < 1 || header[2] > 3) {
    throw protocolError(`expected a TLS ${what} record, got bytes ${header.toString('hex')}`);
  }
  const length = header.readUInt16BE(3);
  if (length > max) throw protocolError(`TLS ${what} record of ${length} bytes, over ${max}`);
  return length;
}

// Reads a handshake message body field by field; any read past its end is
// a protocol violation.
function reader(body, what) {
  let at = 0;
  const need = (n) => {
    if (at + n > body.length) throw protocolError(`truncated TLS ${what}`);
  };
  return {
    get left() {
      return body.length - at;
    },
    u8: () => {
      need(1);
      return body[at++];
    },
    u16: () => {
      need(2);
      at += 2;
      return body.readUInt16BE(at - 2);
    },
    bytes: (n) => {
      need(n);
      at += n;
      return body.subarray(at - n, at);
    },
  };
}

// The start every hello shares: type, 24-bit length (the whole record),
// version 3.3, random, session id. Returns the session id.
function helloStart(read, type, recordLength, what) {
  if (read.u8() !== type) throw protocolError(`TLS handshake record is not a ${what}`);
  if (read.u8() * 0x10000 + read.u16() !== recordLength - 4)
    throw protocolError(`TLS ${what} length disagrees with its record`);
  if (read.u16() !== 0x0303) throw protocolError(`TLS ${what} is not TLS 1.2`);
  read.bytes(32);
  const sessionIdLength = read.u8();
  if (sessionIdLength > 32) throw protocolError(`TLS ${what} session id of ${sessionIdLength} bytes`);
  return read.bytes(sessionIdLength);
}

// Parses a ClientHello record's body as TLS lays it out, wherever its
// extensions stand. Returns { sessionId, ticket, serverName }; the ticket
// is the client's first bytes. A hello without a ticket is not simple-obfs.
export function parseClientHello(body) {
  const read = reader(body, 'ClientHello');
  const sessionId = helloStart(read, 1, body.length, 'ClientHello');
  const suites = read.u16();
  if (suites === 0 || suites % 2 !== 0) throw protocolError(`TLS ClientHello cipher suites of ${suites} bytes`);
  read.bytes(suites);
  const compressions = read.u8();
  if (compressions === 0) throw protocolError('TLS ClientHello without compression methods');
  read.bytes(compressions);
  if (read.u16() !== read.left) throw protocolError('TLS ClientHello extensions length disagrees with its record');
  let ticket = null;
  let serverName = null;
  while (read.left > 0) {
    const type = read.u16();
    const data = read.bytes(read.u16());
    if (type === EXT_SESSION_TICKET) ticket = data;
    else if (type === EXT_SERVER_NAME) serverName = parseServerName(data);
  }
  if (ticket === null) throw protocolError('TLS ClientHello without a session ticket: not simple-obfs');
  return { sessionId, ticket, serverName };
}

// The host_name entry of a server_name extension (RFC 6066).
function parseServerName(data) {
  const read = reader(data, 'server_name extension');
  if (read.u16() !== read.left) throw protocolError('TLS server_name list length disagrees with its extension');
  while (read.left > 0) {
    const type = read.u8();
    const name = read.bytes(read.u16());
    if (type === 0) return name.toString('latin1');
  }
  return null;
}

// Parses a ServerHello record's body up to its session id, which obfs-server
// echoes from the ClientHello; the rest is not read (obfs-server's
// extensions length is wrong, see serverFlight).
export function serverHelloSessionId(body) {
  return helloStart(reader(body, 'ServerHello'), 2, body.length, 'ServerHello');
}
