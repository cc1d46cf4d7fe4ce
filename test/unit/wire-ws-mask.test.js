import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { applyMask, maskInto } from '../../lib/wire/ws-mask.js';
import { WS_MASK_WASM } from '../../lib/wire/ws-mask-bytes.js';
import { compileWat, WASM_SOURCES } from '../../scripts/build-wasm.js';

// RFC 6455 5.3 byte by byte: the reference the module must equal.
const maskedByHand = (bytes, key, phase) => Buffer.from(bytes.map((byte, i) => byte ^ key[(phase + i) % 4]));

test('the embedded wasm is exactly what ws-mask.wat compiles to (npm run build:wasm)', async () => {
  assert.deepEqual(Buffer.from(WS_MASK_WASM, 'base64'), await compileWat(WASM_SOURCES.wsMask.wat));
});

test('RFC 6455 5.7\'s masked "Hello"', () => {
  const bytes = Buffer.from('Hello');
  applyMask(bytes, Buffer.from('37fa213d', 'hex'));
  assert.equal(bytes.toString('hex'), '7f9f4d5158');
});

test('masking in place equals the RFC byte by byte at every alignment, phase and block edge', () => {
  const key = randomBytes(4);
  const longest = 131_075;
  const backing = randomBytes(longest + 5);
  for (let offset = 0; offset < 5; offset++) {
    for (let phase = 0; phase < 4; phase++) {
      // Every shorter run's answer begins the longest one's.
      const expected = maskedByHand(backing.subarray(offset, offset + longest), key, phase);
      for (const length of [0, 1, 3, 4, 5, 15, 16, 17, 257, 65_535, 65_536, 65_537, longest]) {
        const bytes = Buffer.from(backing).subarray(offset, offset + length);
        assert.equal(applyMask(bytes, key, phase), (phase + length) % 4);
        assert.ok(bytes.equals(expected.subarray(0, length)), `offset ${offset} length ${length} phase ${phase}`);
      }
    }
  }
});

test('masking into another buffer leaves the source and the bytes around the destination alone', () => {
  const key = randomBytes(4);
  const from = randomBytes(70_001);
  const copy = Buffer.from(from);
  const to = Buffer.alloc(from.length + 20, 0xee);
  assert.equal(maskInto(from, to, 7, key, 3), (3 + from.length) % 4);
  assert.ok(from.equals(copy));
  assert.ok(to.subarray(7, 7 + from.length).equals(maskedByHand(from, key, 3)));
  assert.ok(to.subarray(0, 7).equals(Buffer.alloc(7, 0xee)));
  assert.ok(to.subarray(7 + from.length).equals(Buffer.alloc(13, 0xee)));
});
