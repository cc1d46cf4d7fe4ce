import { createByteQueue } from '../../wire/byte-queue.js';
import { protocolError } from '../../wire/protocol-error.js';

// TLS records as obfs-tls1.2-ticket writes and reads them:
// [content type][version, 2 bytes][length, 2 bytes BE][body].
export const CHANGE_CIPHER_SPEC = 0x14;
export const HANDSHAKE = 0x16;
export const APPLICATION_DATA = 0x17;
export const TLS_1_0 = 0x0301;
export const TLS_1_2 = 0x0303;

// RFC 5246 6.2.3: no TLSCiphertext body exceeds 2^14 + 2048 bytes, so
// neither does any record a peer may send here.
const MAX_RECORD_BODY = 0x4000 + 2048;
// What one application-data record carries: blinksocks' largest (0x3FFF),
// so its decoder meets nothing it would not make itself.
const MAX_APPLICATION_PAYLOAD = 0x3fff;

const HEADER = 5;

export function record(type, version, body) {
  const header = Buffer.allocUnsafe(HEADER);
  header[0] = type;
  header.writeUInt16BE(version, 1);
  header.writeUInt16BE(body.length, 3);
  return Buffer.concat([header, body]);
}

// Application-data records for `data`, as [header, payload, header, ...]:
// the disguise is the last stage, its pushes go straight to the socket's
// corked writev, so the payloads are not copied.
export function applicationData(data) {
  const pieces = [];
  for (let offset = 0; offset < data.length; offset += MAX_APPLICATION_PAYLOAD) {
    const payload = data.subarray(offset, offset + MAX_APPLICATION_PAYLOAD);
    const header = Buffer.allocUnsafe(HEADER);
    header[0] = APPLICATION_DATA;
    header.writeUInt16BE(TLS_1_2, 1);
    header.writeUInt16BE(payload.length, 3);
    pieces.push(header, payload);
  }
  return pieces;
}

const TYPE_NAMES = {
  [CHANGE_CIPHER_SPEC]: 'ChangeCipherSpec',
  [HANDSHAKE]: 'Handshake',
  [APPLICATION_DATA]: 'ApplicationData',
};
const typeName = (type) => TYPE_NAMES[type] ?? `type 0x${type.toString(16).padStart(2, '0')}`;
const versionName = (version) => `0x${version.toString(16).padStart(4, '0')}`;

// Splits received bytes into records. The caller says which record it
// expects next; the header is checked as soon as its five bytes are in, so
// garbage is refused at once, and a length beyond the TLS limit before its
// body is buffered.
export function createRecordReader() {
  const queue = createByteQueue();
  let header = null;
  return {
    push: (data) => queue.push(data),
    // Returns { type, body } for the next complete record, or null.
    read(expected) {
      if (!header) {
        const bytes = queue.take(HEADER);
        if (!bytes) return null;
        header = { type: bytes[0], version: bytes.readUInt16BE(1), length: bytes.readUInt16BE(3) };
        if (header.type !== expected.type || header.version !== expected.version) {
          throw protocolError(
            `expected a TLS ${typeName(expected.type)} record (version ${versionName(expected.version)}), got ${typeName(header.type)} (version ${versionName(header.version)})`,
          );
        }
        if (header.length > MAX_RECORD_BODY)
          throw protocolError(`TLS record of ${header.length} bytes exceeds 2^14 + 2048`);
      }
      const body = header.length === 0 ? Buffer.alloc(0) : queue.take(header.length);
      if (!body) return null;
      const { type } = header;
      header = null;
      return { type, body };
    },
    // Whether a record has begun and not ended.
    holding: () => header !== null || queue.length > 0,
  };
}
