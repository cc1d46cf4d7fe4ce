import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProtocolError } from '../../lib/wire/protocol-error.js';
import { duplexPair, readToEnd } from '../support/duplex-pair.js';
import ws, {
  acceptKey,
  createFrameReader,
  encodeFrame,
  MOST_EMPTY_FRAMES_IN_A_ROW,
  upgradeRequest,
} from '../../lib/presets/ws.js';

// Known answers for the ws transport from RFC 6455 itself: the handshake's
// accept key (section 1.3), the frames of section 5.7, and how a reader
// meets each rule of section 5 broken.
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const HELLO = Buffer.from('Hello');
const RFC_MASK = hex('37fa213d');
const TEXT = 0x1;
const PING = 0x9;
const PONG = 0xa;

test("the accept key is SHA-1 of the client's key and the RFC's GUID, in base64 (RFC 6455 1.3)", () => {
  assert.equal(acceptKey('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
});

test("the client's upgrade request, byte for byte", () => {
  assert.equal(
    upgradeRequest({ path: '/cipherbench', host: 'localhost', key: 'dGhlIHNhbXBsZSBub25jZQ==' }).toString('latin1'),
    'GET /cipherbench HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );
});

test('frames of RFC 6455 5.7: unmasked and masked "Hello", a ping, a masked pong, 256 bytes and 64 KiB', () => {
  const frame = (...args) => Buffer.concat(encodeFrame(...args));
  assert.deepEqual(frame([HELLO], { masked: false, opcode: TEXT }), hex('81 05 48656c6c6f'));
  assert.deepEqual(frame([HELLO], { masked: true, opcode: TEXT, key: RFC_MASK }), hex('81 85 37fa213d 7f9f4d5158'));
  assert.deepEqual(frame([HELLO], { masked: false, opcode: PING }), hex('89 05 48656c6c6f'));
  assert.deepEqual(frame([HELLO], { masked: true, opcode: PONG, key: RFC_MASK }), hex('8a 85 37fa213d 7f9f4d5158'));
  assert.deepEqual(frame([Buffer.alloc(256)], { masked: false }).subarray(0, 4), hex('82 7e 0100'));
  assert.deepEqual(frame([Buffer.alloc(65536)], { masked: false }).subarray(0, 10), hex('82 7f 0000000000010000'));
  // Several writes go out as one frame, masked as one run of bytes.
  assert.deepEqual(
    frame([Buffer.from('He'), Buffer.from('llo')], { masked: true, opcode: TEXT, key: RFC_MASK }),
    hex('81 85 37fa213d 7f9f4d5158'),
  );
});

// What a reader delivered from `bytes`, fed in pieces of `step` bytes.
function readAll(bytes, { masked, step = bytes.length }) {
  const data = [];
  const controls = [];
  const reader = createFrameReader({
    masked,
    onData: (piece) => data.push(Buffer.from(piece)),
    onControl: (opcode, payload) => controls.push([opcode, Buffer.from(payload).toString('hex')]),
  });
  for (let at = 0; at < bytes.length; at += step) reader.read(Buffer.from(bytes.subarray(at, at + step)));
  return { data: Buffer.concat(data), controls, atBoundary: reader.atBoundary() };
}

test('a reader carries a message fragmented across frames, and a ping between them, however it is split', () => {
  const wire = Buffer.concat([
    ...encodeFrame([Buffer.from('Hel')], { masked: true, key: RFC_MASK }),
    ...encodeFrame([HELLO], { masked: true, opcode: PING }),
    ...encodeFrame([Buffer.from('lo')], { masked: true }),
  ]);
  wire[0] &= 0x7f; // the first frame does not finish its message
  wire[wire.length - 8] = 0x80; // the last (2 + 4 + 2 bytes) is a continuation that finishes it
  for (const step of [1, 2, 3, 7, wire.length]) {
    const { data, controls, atBoundary } = readAll(wire, { masked: true, step });
    assert.equal(data.toString(), 'Hello', `step ${step}`);
    assert.deepEqual(controls, [[PING, HELLO.toString('hex')]]);
    assert.ok(atBoundary);
  }
  assert.equal(readAll(wire.subarray(0, 5), { masked: true }).atBoundary, false, 'cut inside a frame');
});

test("a chunk's data frames go on as one piece, split only where a control frame comes between them", () => {
  const frames = (parts, masked) =>
    parts.flatMap(([opcode, text]) => encodeFrame([Buffer.from(text)], { masked, opcode }));
  for (const masked of [true, false]) {
    const deliveries = [];
    const reader = createFrameReader({
      masked,
      onData: (piece) => deliveries.push(`data ${Buffer.from(piece)}`),
      onControl: (opcode, payload) => deliveries.push(`control ${opcode} ${Buffer.from(payload)}`),
    });
    const binary = 0x2;
    reader.read(
      Buffer.concat(
        frames(
          [
            [binary, 'ab'],
            [binary, 'cde'],
            [binary, 'f'],
            [PING, 'p'],
            [binary, 'gh'],
          ],
          masked,
        ),
      ),
    );
    reader.read(
      Buffer.concat(
        frames(
          [
            [binary, 'ij'],
            [binary, 'k'],
          ],
          masked,
        ),
      ),
    );
    assert.deepEqual(deliveries, ['data abcdef', `control ${PING} p`, 'data gh', 'data ijk'], `masked ${masked}`);
  }
});

test('a reader refuses every rule of RFC 6455 5 broken, with a protocol error', () => {
  const masked = (header, payload = Buffer.alloc(0)) => Buffer.concat([hex(header), RFC_MASK, payload]);
  const cases = [
    ['a frame announcing 2^63 bytes', { masked: true }, masked('82 ff 8000000000000000'), /most significant bit/],
    ['a frame announcing 2^62 bytes', { masked: true }, masked('82 ff 4000000000000000'), /announcing/],
    ['an unmasked frame from a client', { masked: true }, hex('82 05 48656c6c6f'), /unmasked frame from a client/],
    ['a masked frame from a server', { masked: false }, masked('82 85', HELLO), /masked frame from a server/],
    ['reserved bits', { masked: true }, masked('c2 85', HELLO), /reserved bits/],
    ['a text frame', { masked: true }, masked('81 85', HELLO), /text frame/],
    ['a reserved opcode', { masked: true }, masked('83 80'), /reserved opcode 3/],
    ['a control frame over 125 bytes', { masked: true }, masked('89 fe 007e', Buffer.alloc(126)), /over 125/],
    ['a fragmented ping', { masked: true }, masked('09 80'), /fragmented control/],
    ['a continuation outside a message', { masked: true }, masked('80 85', HELLO), /continuation frame outside/],
    [
      'a new message inside an unfinished one',
      { masked: true },
      Buffer.concat([masked('02 85', HELLO), masked('82 85', HELLO)]),
      /new message before/,
    ],
    [
      `${MOST_EMPTY_FRAMES_IN_A_ROW + 1} pings in a row`,
      { masked: true },
      Buffer.concat(Array.from({ length: MOST_EMPTY_FRAMES_IN_A_ROW + 1 }, () => masked('89 80'))),
      /frames in a row carried no data/,
    ],
  ];
  for (const [label, options, bytes, expected] of cases) {
    assert.throws(
      () => readAll(bytes, options),
      (error) => isProtocolError(error) && expected.test(error.message),
      label,
    );
  }
  // What follows a Close is not read, a second Close (sing-box's) or not.
  const close = Buffer.concat(encodeFrame([hex('03e8')], { masked: true, opcode: 0x8 }));
  const afterClose = readAll(Buffer.concat([close, close, hex('82 05 48656c6c6f')]), { masked: true });
  assert.deepEqual(afterClose.controls, [[0x8, '03e8']]);
  assert.equal(afterClose.data.length, 0);
  // Data between them resets the count: a keep-alive ping is no flood.
  const pingsWithData = Array.from({ length: 3 * MOST_EMPTY_FRAMES_IN_A_ROW }, (_, i) =>
    i % 10 === 9 ? masked('82 85', Buffer.from(HELLO)) : masked('89 80'),
  );
  assert.doesNotThrow(() => readAll(Buffer.concat(pingsWithData), { masked: true }));
});

test('a client and a server layer: the upgrade, masked frames up, unmasked down, each Close a half-close', async () => {
  const { client, server, wire } = duplexPair();
  const transport = ws.transport({});
  const ours = transport.connect(client);
  const theirs = transport.accept(server);
  const up = readToEnd(theirs);
  ours.end(Buffer.from('ping over ws'));
  assert.equal((await up).toString(), 'ping over ws');
  // The client's end is a Close; the server's side still writes.
  const down = readToEnd(ours);
  theirs.end(Buffer.from('and back'));
  assert.equal((await down).toString(), 'and back');

  const sent = Buffer.concat(wire.toServer);
  const request = sent.subarray(0, sent.indexOf('\r\n\r\n') + 4).toString('latin1');
  assert.match(request, /^GET \/cipherbench HTTP\/1\.1\r\nHost: localhost\r\n/);
  const key = /Sec-WebSocket-Key: (\S+)/.exec(request)[1];
  const answered = Buffer.concat(wire.toClient);
  const answer = answered.subarray(0, answered.indexOf('\r\n\r\n') + 4).toString('latin1');
  assert.equal(
    answer,
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`,
  );
  const up1 = sent.subarray(request.length);
  assert.equal(up1[0], 0x82, 'a binary frame, FIN set');
  assert.equal(up1[1], 0x80 | 12, 'masked, 12 bytes');
  assert.equal(readAll(up1, { masked: true }).data.toString(), 'ping over ws');
  assert.deepEqual(readAll(up1, { masked: true }).controls, [[0x8, '03e8']], 'then a Close, 1000');
  const down1 = answered.subarray(answer.length);
  assert.deepEqual(down1.subarray(0, 2), hex('82 08'), 'unmasked, 8 bytes');
  assert.deepEqual(down1.subarray(10), hex('88 02 03e8'), 'then a Close, 1000');
});

test('a server answers a wrong path with 404 and a request that is no upgrade with 400, then closes', async () => {
  for (const [request, status] of [
    ['GET /elsewhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n', '404 Not Found'],
    ['GET /cipherbench HTTP/1.1\r\nHost: x\r\n\r\n', '400 Bad Request'],
    [
      'GET /cipherbench HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n',
      '400 Bad Request',
    ],
  ]) {
    const { client, server } = duplexPair();
    const theirs = ws.transport({}).accept(server);
    const failed = new Promise((resolve) => theirs.once('error', resolve));
    const answer = readToEnd(client);
    client.write(request);
    const error = await failed;
    assert.ok(isProtocolError(error), error.message);
    assert.match((await answer).toString('latin1'), new RegExp(`^HTTP/1\\.1 ${status}\\r\\n`));
  }
});
