import assert from 'node:assert/strict';
import { test } from 'node:test';
import grpc, {
  createHunkReader,
  encodeHunks,
  hunkHeader,
  MOST_HUNK_BYTES,
  MOST_MESSAGE_BYTES,
} from '../../lib/presets/grpc.js';
import h2 from '../../lib/presets/h2.js';
import { isProtocolError } from '../../lib/wire/protocol-error.js';
import { duplexPair, readToEnd } from '../support/duplex-pair.js';

// Known answers for the gRPC transport's framing, the bytes Xray's
// transport/internet/grpc/encoding (grpc-go marshalling `Hunk`) and
// sing-box's v2raygrpclite write: a flag byte 0, a 4-byte big-endian
// length, then protobuf field 1 (tag 0x0a), a varint length, the bytes.
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const HELLO = hex('00 00000007 0a 05 68656c6c6f');

const readAll = (bytes, { byByte = false } = {}) => {
  const out = [];
  const reader = createHunkReader((piece) => out.push(Buffer.from(piece)));
  if (byByte) for (const byte of bytes) reader.read(Buffer.from([byte]));
  else reader.read(bytes);
  reader.ended();
  return Buffer.concat(out);
};
const refused = (bytes, pattern) =>
  assert.throws(
    () => readAll(bytes),
    (error) => (isProtocolError(error) && pattern.test(error.message)) || assert.fail(error.message),
  );

test('a Hunk of "hello", byte for byte, and one of 300 bytes (a two-byte varint)', () => {
  assert.deepEqual(Buffer.concat(encodeHunks([Buffer.from('hel'), Buffer.from('lo')])), HELLO);
  assert.deepEqual(hunkHeader(300), hex('00 0000012f 0a ac02'));
  assert.deepEqual(hunkHeader(MOST_HUNK_BYTES), hex('00 00010004 0a 808004'));
});

test(`a write over ${MOST_HUNK_BYTES} bytes goes as several messages, none empty`, () => {
  const data = Buffer.alloc(MOST_HUNK_BYTES * 2 + 1, 7);
  const wire = Buffer.concat(encodeHunks([data]));
  assert.equal(wire.length, data.length + 2 * 9 + 7);
  assert.deepEqual(readAll(wire), data);
  assert.deepEqual(encodeHunks([]), []);
});

test("the reader: a message a byte at a time, Xray's MultiHunk (fields one after another), an empty message", () => {
  assert.equal(readAll(HELLO, { byByte: true }).toString(), 'hello');
  const multi = hex('00 0000000a 0a03 616263 0a03 646566');
  assert.equal(readAll(Buffer.concat([multi, hex('00 00000000'), HELLO])).toString(), 'abcdefhello');
});

test('the reader refuses what no peer sends: compression, a length over the bound, 4 GiB, another field, a field past its message, a cut', () => {
  refused(hex('01 00000007 0a05 68656c6c6f'), /compressed/);
  refused(hex('00 ffffffff'), new RegExp(`announcing 4294967295 bytes, over ${MOST_MESSAGE_BYTES}`));
  refused(hex('00 00000007 12 05 68656c6c6f'), /tagged 0x12/);
  refused(hex('00 00000003 0a 05 6865'), /a field of 5 bytes in a message with 1 left/);
  refused(hex('00 00000002 0a 80'), /ends inside its field's length/);
  refused(HELLO.subarray(0, 9), /ended inside a message/);
});

// Both halves over an in-memory pair: the HTTP/2 client's request and the
// server's answer, the bytes carried each way, each END_STREAM a FIN.
for (const preset of [grpc, h2]) {
  test(`${preset.name}: both halves carry bytes each way and a FIN a FIN`, async () => {
    const { client, server, wire } = duplexPair();
    const transport = preset.transport({});
    const ours = transport.connect(client);
    const theirs = transport.accept(server);
    const up = readToEnd(theirs);
    ours.end(Buffer.from('bytes up'));
    assert.equal((await up).toString(), 'bytes up');
    const down = readToEnd(ours);
    theirs.end(Buffer.from('bytes down'));
    assert.equal((await down).toString(), 'bytes down');
    const sent = Buffer.concat(wire.toServer).toString('latin1');
    assert.ok(sent.startsWith('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), 'h2c with prior knowledge');
    // The headers are HPACK's; the body is the DATA frame's, as it is.
    assert.ok(sent.includes(preset === grpc ? '\x0a\x08bytes up' : 'bytes up'));
    theirs.destroy();
    ours.destroy();
  });
}

for (const [preset, params, refusal] of [
  [grpc, { serviceName: 'other' }, /a call to "\/other\/Tun", not \/cipherbench\/Tun \(answered 404\)/],
  [h2, { path: '/cipherbench/more' }, /a request for "\/cipherbench\/more", not \/cipherbench \(answered 404\)/],
  [h2, { host: 'example.org' }, /a request for host "example.org", not www.example.com \(answered 404\)/],
]) {
  test(`${preset.name}: a server refuses ${JSON.stringify(params)} with a 404 the client reads as a refusal`, async () => {
    const { client, server } = duplexPair();
    const ours = preset.transport(params).connect(client);
    const theirs = preset.transport({ host: 'www.example.com' }).accept(server);
    const refused = new Promise((resolve) => theirs.once('error', resolve));
    ours.write('x');
    const error = await new Promise((resolve) => ours.once('error', resolve));
    assert.match(error.message, new RegExp(`${preset.name}: the server answered 404`));
    assert.match((await refused).message, refusal);
  });
}

test('a stream ended both ways, its connection closed, is still read to its end, not reset', async () => {
  const { client, server } = duplexPair();
  const transport = grpc.transport({});
  const ours = transport.connect(client);
  const theirs = transport.accept(server);
  theirs.pause();
  const down = readToEnd(ours);
  ours.end(Buffer.from('bytes up'));
  await new Promise((resolve) => theirs.once('connect', resolve));
  theirs.end(Buffer.from('bytes down'));
  assert.equal((await down).toString(), 'bytes down');
  await new Promise((resolve) => server.once('close', resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal((await readToEnd(theirs.resume())).toString(), 'bytes up');
});
