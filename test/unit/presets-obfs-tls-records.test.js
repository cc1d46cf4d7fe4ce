import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  APPLICATION_DATA,
  applicationData,
  CHANGE_CIPHER_SPEC,
  createRecordReader,
  HANDSHAKE,
  record,
  TLS_1_0,
  TLS_1_2,
} from '../../lib/presets/obfs/tls-records.js';

// TLS records as obfs-tls1.2-ticket writes and reads them, RFC 5246 6.2.1:
// ContentType (change_cipher_spec 20, handshake 22, application_data 23),
// ProtocolVersion (TLS 1.0 = 3,1; TLS 1.2 = 3,3), uint16 length, fragment.
test('the RFC 5246 constants and a record header, byte for byte', () => {
  assert.deepEqual([CHANGE_CIPHER_SPEC, HANDSHAKE, APPLICATION_DATA, TLS_1_0, TLS_1_2], [20, 22, 23, 0x0301, 0x0303]);
  // The ChangeCipherSpec message is the single byte 1 (7.1).
  assert.equal(record(CHANGE_CIPHER_SPEC, TLS_1_2, Buffer.from([1])).toString('hex'), '140303000101');
  assert.equal(record(HANDSHAKE, TLS_1_0, Buffer.alloc(0x0200)).subarray(0, 5).toString('hex'), '1603010200');
});

test('application data is cut into records of at most 0x3FFF bytes, headers and payload views in turn', () => {
  const data = Buffer.alloc(0x3fff * 2 + 1, 0xab);
  const pieces = applicationData(data);
  assert.deepEqual(
    pieces.map((piece) => piece.length),
    [5, 0x3fff, 5, 0x3fff, 5, 1],
  );
  assert.deepEqual(pieces[0], Buffer.from('1703033fff', 'hex'));
  assert.deepEqual(pieces[4], Buffer.from('1703030001', 'hex'));
  assert.equal(pieces[1].buffer, data.buffer, 'payloads are views of the data, not copies');
  assert.deepEqual(applicationData(Buffer.alloc(0)), []);
});

test('the reader returns whole records of the expected type, cut anywhere', () => {
  const wire = Buffer.concat([
    record(HANDSHAKE, TLS_1_2, Buffer.from('hello')),
    ...applicationData(Buffer.from('data')),
    record(APPLICATION_DATA, TLS_1_2, Buffer.alloc(0)),
  ]);
  for (let cut = 0; cut <= wire.length; cut++) {
    const reader = createRecordReader();
    const got = [];
    const readAll = () => {
      for (;;) {
        const expected =
          got.length === 0 ? { type: HANDSHAKE, version: TLS_1_2 } : { type: APPLICATION_DATA, version: TLS_1_2 };
        const next = reader.read(expected);
        if (!next) return;
        got.push(`${next.type}:${next.body.toString()}`);
      }
    };
    reader.push(wire.subarray(0, cut));
    readAll();
    reader.push(wire.subarray(cut));
    readAll();
    assert.deepEqual(got, ['22:hello', '23:data', '23:'], `cut at ${cut}`);
  }
});

test('a header of another type or version, or a length past 2^14 + 2048, is refused before its body arrives', () => {
  const expectHandshake = { type: HANDSHAKE, version: TLS_1_2 };
  const refused = (header, message) => {
    const reader = createRecordReader();
    reader.push(Buffer.from(header, 'hex'));
    assert.throws(() => reader.read(expectHandshake), { code: 'ERR_CIPHERBENCH_PROTOCOL', message });
  };
  refused('1703030001', /expected a TLS Handshake record \(version 0x0303\), got ApplicationData \(version 0x0303\)/);
  refused('1603010001', /got Handshake \(version 0x0301\)/);
  refused('4745542f20', /got type 0x47/);
  refused('1603034801', /TLS record of 18433 bytes exceeds 2\^14 \+ 2048/);
  const reader = createRecordReader();
  reader.push(Buffer.from('1603034800', 'hex'));
  assert.equal(reader.read(expectHandshake), null, 'exactly 2^14 + 2048 is allowed: its body is awaited');
});
