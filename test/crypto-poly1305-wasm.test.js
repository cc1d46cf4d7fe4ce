import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { poly1305 } from '../lib/crypto/poly1305.js';
import { POLY1305_WASM } from '../lib/crypto/poly1305-wasm-bytes.js';
import { poly1305Parts } from '../lib/crypto/poly1305-wasm.js';
import { compileWat, WASM_SOURCES } from '../scripts/build-wasm.js';
import { requirePrograms } from './support/programs.js';

const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const wasmTag = (key, parts) => {
  const out = Buffer.alloc(16);
  poly1305Parts(key, parts, out);
  return out;
};
const jsTag = (key, message) => {
  const out = Buffer.alloc(16);
  poly1305(key, message, out);
  return out;
};
// Cut at random places (empty parts too), so a block straddles parts and the
// module's 32 KiB copies.
const randomParts = (message) => {
  const cuts = Array.from({ length: randomInt(4) }, () => randomInt(message.length + 1)).sort((a, b) => a - b);
  return [0, ...cuts, message.length].slice(1).map((end, i, ends) => message.subarray(i === 0 ? 0 : ends[i - 1], end));
};

test('the embedded wasm is exactly what poly1305.wat compiles to (npm run build:wasm)', async () => {
  assert.deepEqual(Buffer.from(POLY1305_WASM, 'base64'), await compileWat(WASM_SOURCES.poly1305.wat));
});

// RFC 8439 2.5.2 and appendix A.3 (#1, #4 to #11; #2 and #3 are the long
// IETF-notice text), key || message || tag.
const VECTORS = [
  [
    '85d6be7857556d337f4452fe42d506a8 0103808afb0db2fd4abff6af4149f51b',
    Buffer.from('Cryptographic Forum Research Group').toString('hex'),
    'a8061dc1305136c6c22b8baf0c0127a9',
  ],
  ['00'.repeat(32), '00'.repeat(64), '00'.repeat(16)],
  [
    '1c9240a5eb55d38af333888604f6b5f0 473917c1402b80099dca5cbc207075c0',
    Buffer.from(
      "'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\nAll mimsy were the borogoves,\nAnd the mome raths outgrabe.",
    ).toString('hex'),
    '4541669a7eaaee61e708dc7cbcc5eb62',
  ],
  ['02' + '00'.repeat(31), 'ff'.repeat(16), '03' + '00'.repeat(15)],
  ['02' + '00'.repeat(15) + 'ff'.repeat(16), '02' + '00'.repeat(15), '03' + '00'.repeat(15)],
  ['01' + '00'.repeat(31), 'ff'.repeat(16) + 'f0' + 'ff'.repeat(15) + '11' + '00'.repeat(15), '05' + '00'.repeat(15)],
  ['01' + '00'.repeat(31), 'ff'.repeat(16) + 'fb' + 'fe'.repeat(15) + '01'.repeat(16), '00'.repeat(16)],
  ['02' + '00'.repeat(31), 'fd' + 'ff'.repeat(15), 'fa' + 'ff'.repeat(15)],
  [
    '0100000000000000 0400000000000000' + '00'.repeat(16),
    'e33594d7505e43b9 0000000000000000 3394d7505e4379cd 0100000000000000' + '00'.repeat(16) + '01' + '00'.repeat(15),
    '1400000000000000 5500000000000000',
  ],
  [
    '0100000000000000 0400000000000000' + '00'.repeat(16),
    'e33594d7505e43b9 0000000000000000 3394d7505e4379cd 0100000000000000' + '00'.repeat(16),
    '13' + '00'.repeat(15),
  ],
];

test("RFC 8439 2.5.2 and A.3: the wasm and the JavaScript Poly1305 give the RFC's tags", () => {
  for (const [key, message, tag] of VECTORS) {
    assert.deepEqual(wasmTag(hex(key), [hex(message)]), hex(tag), `wasm, key ${key}`);
    assert.deepEqual(wasmTag(hex(key), randomParts(hex(message))), hex(tag), `wasm in parts, key ${key}`);
    assert.deepEqual(jsTag(hex(key), hex(message)), hex(tag), `JavaScript, key ${key}`);
  }
});

// Every length 0..300 (every short last block, every block count to 18),
// lengths around the 16 KiB payloads and the 32 KiB copies, random keys.
const LENGTHS = [
  ...Array.from({ length: 301 }, (_, n) => n),
  ...Array.from({ length: 41 }, (_, i) => 16364 + i),
  0x3fff + 16,
  0x3fff + 32,
  32767,
  32768,
  32769,
  65536 + 7,
  100_000,
];
const cases = LENGTHS.map((length) => ({ key: randomBytes(32), message: randomBytes(length) }));

test('random messages of every length to 300 and around 16 KiB: wasm equals the JavaScript Poly1305', () => {
  for (const { key, message } of cases) {
    const expected = jsTag(key, message);
    assert.deepEqual(wasmTag(key, [message]), expected, `length ${message.length}`);
    assert.deepEqual(wasmTag(key, randomParts(message)), expected, `length ${message.length} in parts`);
  }
});

// The largest limbs: r clamped at its maximum and all-ones messages keep h
// near its bounds through every carry.
test('extreme keys and messages: wasm equals the JavaScript Poly1305', () => {
  const keys = [Buffer.alloc(32, 0xff), Buffer.concat([Buffer.alloc(16, 0xff), Buffer.alloc(16)]), Buffer.alloc(32)];
  for (const key of keys) {
    for (const length of [1, 15, 16, 17, 31, 32, 33, 1000, 16400]) {
      for (const fill of [0xff, 0x00, 0xfe]) {
        const message = Buffer.alloc(length, fill);
        assert.deepEqual(
          wasmTag(key, [message]),
          jsTag(key, message),
          `key ${key.toString('hex')} ${length} x ${fill}`,
        );
      }
    }
  }
});

// An independent implementation: Python's cryptography (OpenSSL's Poly1305).
const PYTHON_TAGS = `
import json, sys
from cryptography.hazmat.primitives.poly1305 import Poly1305
for key, message in json.load(sys.stdin):
    print(Poly1305.generate_tag(bytes.fromhex(key), bytes.fromhex(message)).hex())
`;

// Debian's python3, which python3-cryptography (installed by .ci/run) serves,
// rather than whichever python3 comes first on PATH (pyenv's, on CI machines).
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

test("random messages of every length to 300 and around 16 KiB: wasm equals Python cryptography's Poly1305", (t) => {
  if (!requirePrograms(t, PYTHON)) return;
  let tags;
  try {
    tags = execFileSync(PYTHON, ['-c', PYTHON_TAGS], {
      input: JSON.stringify(cases.map(({ key, message }) => [key.toString('hex'), message.toString('hex')])),
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    })
      .trim()
      .split('\n');
  } catch (error) {
    const message = `needs Python's cryptography (Debian: apt-get install -y python3-cryptography): ${error.stderr?.trim().split('\n').at(-1)}`;
    if (process.env.CI === 'true') throw new Error(message, { cause: error });
    t.skip(message);
    return;
  }
  assert.equal(tags.length, cases.length);
  cases.forEach(({ key, message }, i) =>
    assert.equal(wasmTag(key, [message]).toString('hex'), tags[i], `length ${message.length}`),
  );
});
