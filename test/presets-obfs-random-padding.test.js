import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import preset, { encodeFrames } from '../lib/presets/obfs/random-padding.js';
import { blinksocksPreset, requireBlinksocks } from './support/blinksocks-pair.js';
import { assertEverySplit, runStage } from './support/splits.js';

// obfs-random-padding frames: [padding length][padding][data length, BE 16][data].
const stages = () => preset.prepare({}, {})({});
const decodeOurs = (pieces) => runStage(stages().serverDecode, pieces);
const hex = (text) => Buffer.from(text.replace(/\s/g, ''), 'hex');

test('known answer: frames with and without padding, and an empty one, decode to their data', () => {
  const wire = hex('02 aabb 0003 616263   00 0000   00 0002 6869');
  assert.equal(Buffer.concat(decodeOurs([wire])).toString(), 'abchi');
  assertEverySplit(assert, wire, decodeOurs, Buffer.from('abchi'));
});

test("known answer: the encoder's frames for a fixed random source", () => {
  // 0x0707 picks a frame of 0x3FFF + 0x0707 % 0xC001 = 18182 bytes; a
  // 5-byte tail gets 7 % 1021 = 7 bytes of padding, a long one none.
  const random = (n) => Buffer.alloc(n, 7);
  assert.deepEqual(Buffer.concat(encodeFrames(Buffer.from('hello'), random)), hex('07 07070707070707 0005 68656c6c6f'));
  const frames = encodeFrames(Buffer.alloc(40_000, 1), random);
  assert.deepEqual(
    frames.filter((_, i) => i % 2 === 0).map((header) => header.toString('hex')),
    ['004706', '004706', '000e34'],
  );
  assert.deepEqual(
    frames.filter((_, i) => i % 2 === 1).map((payload) => payload.length),
    [18182, 18182, 3636],
  );
  assert.deepEqual(encodeFrames(Buffer.alloc(0), random), [], 'nothing to send, no frame');
});

test('frames carry 0x3FFF to 0xFFFF bytes; only short ones are padded, by at most 255 bytes', () => {
  const lengths = [];
  for (let i = 0; i < 200; i++) {
    for (const size of [1, 400, 1000, 1440, 1441, 70_000]) {
      const frames = encodeFrames(randomBytes(size));
      for (let f = 0; f < frames.length; f += 2) {
        const [padding] = frames[f];
        const dataLength = frames[f].readUInt16BE(1 + padding);
        assert.equal(frames[f + 1].length, dataLength);
        if (f + 2 < frames.length) assert.ok(dataLength >= 0x3fff && dataLength <= 0xffff, `${dataLength}`);
        if (dataLength > 1440) assert.equal(padding, 0, `a ${dataLength}-byte frame is not padded`);
        lengths.push(padding);
      }
    }
  }
  assert.ok(Math.max(...lengths) > 200, 'short frames get up to 255 bytes of padding');
});

test("blinksocks' frames decode here, at every split, and ours decode in blinksocks", (t) => {
  if (!requireBlinksocks(t)) return;
  const theirs = blinksocksPreset('obfs-random-padding', { role: 'client' });
  for (const size of [1, 7, 500, 1500]) {
    const data = randomBytes(size);
    assertEverySplit(assert, theirs.beforeOut({ buffer: data }), decodeOurs, data);
  }
  const large = randomBytes(300_000);
  assert.deepEqual(Buffer.concat(decodeOurs([theirs.beforeOut({ buffer: large })])), large);

  const ours = stages();
  for (const size of [1, 500, 300_000]) {
    const data = randomBytes(size);
    const wire = Buffer.concat(runStage(ours.clientEncode, [data]));
    const decoded = [];
    blinksocksPreset('obfs-random-padding', { role: 'server' }).beforeIn({
      buffer: wire,
      next: (chunk) => decoded.push(chunk),
    });
    assert.deepEqual(Buffer.concat(decoded), data, `${size} bytes`);
  }
});

test("a frame's data is passed on as it arrives; only a partial header is held between reads", () => {
  const decode = stages().serverDecode;
  const out = [];
  const feed = (bytes) => decode(bytes, (data) => out.push(data.length));
  feed(hex('ff'));
  feed(Buffer.alloc(255));
  feed(hex('ff'));
  assert.deepEqual(out, [], 'a header without its last byte');
  feed(hex('ff'));
  feed(Buffer.alloc(0xfffe, 1));
  assert.deepEqual(out, [0xfffe], 'data before its frame is complete');
  feed(hex('01 00 0001 02'));
  assert.deepEqual(out, [0xfffe, 1, 1], "the frame's last byte, then a whole frame, from one read");
});

// docs/blinksocks.md, "obfs presets": blinksocks' frame reader recurses once
// per frame in a read, so one read of a few thousand short frames (18 KB of
// empty ones here) overflows its stack; ours reads them in a loop.
test('blinksocks 3.3.0 defect: a read of many short frames overflows its stack', (t) => {
  if (!requireBlinksocks(t)) return;
  const frames = Buffer.concat([Buffer.alloc(3 * 6200), hex('00 0003 616263')]);
  const theirs = blinksocksPreset('obfs-random-padding', { role: 'server' });
  assert.throws(() => theirs.beforeIn({ buffer: frames, next: () => {} }), RangeError);
  assert.equal(Buffer.concat(decodeOurs([frames])).toString(), 'abc');
});
