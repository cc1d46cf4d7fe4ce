import { randomBytes } from 'node:crypto';
import { createByteQueue } from '../../wire/byte-queue.js';
import { protocolError } from '../../wire/protocol-error.js';
import {
  APPLICATION_DATA,
  CHANGE_CIPHER_SPEC,
  clientHello,
  HANDSHAKE,
  handshakeRecordLength,
  helloRandom,
  MAX_HELLO_RECORD,
  MAX_RECORD,
  maxTicket,
  parseClientHello,
  RECORD_HEADER,
  serverFlight,
  serverHelloSessionId,
} from './tls-hello.js';

// simple-obfs' obfs=tls: after the hellos (tls-hello.js), every byte either
// way rides in application data records, 17 03 03 LENGTH, of at most 16384
// bytes. Nothing is encrypted: the disguise is the framing alone.

// Pushes `data` as records of `type`, MAX_RECORD bytes at most each.
function pushRecords(data, push, type = APPLICATION_DATA) {
  for (let offset = 0; offset < data.length; offset += MAX_RECORD) {
    const payload = data.subarray(offset, offset + MAX_RECORD);
    const header = Buffer.allocUnsafe(RECORD_HEADER);
    header[0] = type;
    header.writeUInt16BE(0x0303, 1);
    header.writeUInt16BE(payload.length, 3);
    push(header);
    push(payload);
  }
}

// Reads records of `firstType` then of application data, streaming each
// record's payload on as it arrives: nothing is held but a header's bytes.
function createRecordReader(firstType) {
  const header = Buffer.alloc(RECORD_HEADER);
  let type = firstType;
  let headerBytes = 0;
  let remaining = 0;
  return (data, push) => {
    let offset = 0;
    while (offset < data.length) {
      if (remaining > 0) {
        const end = Math.min(data.length, offset + remaining);
        push(data.subarray(offset, end));
        remaining -= end - offset;
        offset = end;
        continue;
      }
      const copied = data.copy(header, headerBytes, offset, offset + RECORD_HEADER - headerBytes);
      headerBytes += copied;
      offset += copied;
      if (headerBytes < RECORD_HEADER) return;
      headerBytes = 0;
      if (header[0] !== type || header[1] !== 3 || header[2] !== 3) {
        throw protocolError(`expected a TLS record of type ${type}, got bytes ${header.toString('hex')}`);
      }
      remaining = header.readUInt16BE(3);
      if (remaining > MAX_RECORD) throw protocolError(`TLS record of ${remaining} bytes, over ${MAX_RECORD}`);
      type = APPLICATION_DATA;
    }
  };
}

export function prepareTls({ host }) {
  const ticketLimit = maxTicket(host);
  return () => {
    let sessionId = null;
    let helloSent = false;
    let flightSent = false;
    let serverHelloRead = false;
    let queue = createByteQueue();
    let recordLength = -1;
    let readRecords = null;

    // Takes the next whole handshake record's body from the queue, or null.
    const takeRecord = (max, what) => {
      if (recordLength < 0) {
        const header = queue.take(RECORD_HEADER);
        if (!header) return null;
        recordLength = handshakeRecordLength(header, max, what);
      }
      const body = queue.take(recordLength);
      if (body) recordLength = -1;
      return body;
    };
    // The handshake is over: what is queued and all that follows is records.
    const startRecords = (firstType, push) => {
      readRecords = createRecordReader(firstType);
      const rest = queue.takeAll();
      queue = null;
      readRecords(rest, push);
    };

    return {
      // The ClientHello carries the first bytes (as many as fit, see
      // maxTicket: the rest follow in records); empty pushes wait, as
      // obfs-local never sends an empty ticket.
      clientEncode(data, push) {
        if (helloSent) return pushRecords(data, push);
        if (data.length === 0) return;
        helloSent = true;
        sessionId = randomBytes(32);
        const ticket = data.subarray(0, ticketLimit);
        for (const part of clientHello({ host, ticket, sessionId, random: helloRandom() })) push(part);
        pushRecords(data.subarray(ticket.length), push);
      },
      serverDecode(data, push) {
        if (readRecords) return readRecords(data, push);
        queue.push(data);
        const body = takeRecord(MAX_HELLO_RECORD, 'ClientHello');
        if (!body) return;
        const hello = parseClientHello(body);
        if (hello.serverName?.toLowerCase() !== host.toLowerCase()) {
          throw protocolError(
            `TLS ClientHello for server name ${JSON.stringify(hello.serverName?.slice(0, 64) ?? null)}, not ${host}`,
          );
        }
        sessionId = Buffer.from(hello.sessionId);
        if (hello.ticket.length > 0) push(hello.ticket);
        startRecords(APPLICATION_DATA, push);
      },
      // As obfs-server does, the server's hellos wait for the target's
      // first bytes and go out with them in one buffer: obfs-local needs
      // all of it, and a byte of data, in its first read.
      serverEncode(data, push) {
        if (flightSent) return pushRecords(data, push);
        if (data.length === 0) return;
        flightSent = true;
        const first = data.subarray(0, MAX_RECORD);
        push(serverFlight({ sessionId, random: helloRandom(), data: first }));
        pushRecords(data.subarray(first.length), push);
      },
      clientDecode(data, push) {
        if (readRecords) return readRecords(data, push);
        queue.push(data);
        if (!serverHelloRead) {
          const body = takeRecord(MAX_RECORD, 'ServerHello');
          if (!body) return;
          if (!helloSent || !serverHelloSessionId(body).equals(sessionId))
            throw protocolError('TLS ServerHello does not echo our session id');
          serverHelloRead = true;
        }
        const changeCipherSpec = queue.take(CHANGE_CIPHER_SPEC.length);
        if (!changeCipherSpec) return;
        if (!changeCipherSpec.equals(CHANGE_CIPHER_SPEC)) {
          throw protocolError(`expected TLS ChangeCipherSpec, got bytes ${changeCipherSpec.toString('hex')}`);
        }
        // The server's first bytes come in a handshake record, the rest in
        // application data records.
        startRecords(HANDSHAKE, push);
      },
    };
  };
}
