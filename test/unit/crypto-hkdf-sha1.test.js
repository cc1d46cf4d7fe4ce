import assert from 'node:assert/strict';
import { hkdfSync, randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { createHkdfSha1 } from '../../lib/crypto/hkdf-sha1.js';

const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const range = (from, count) => Buffer.from(Array.from({ length: count }, (_, i) => from + i));

// RFC 5869 appendix A, the SHA-1 cases (4 to 7): short, long (80-byte
// key, salt and info, so a salt longer than a block), no salt and no info.
const RFC5869 = [
  {
    name: 'A.4',
    ikm: Buffer.alloc(11, 0x0b),
    salt: range(0x00, 13),
    info: range(0xf0, 10),
    length: 42,
    okm: '085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2c22e422478d305f3f896',
  },
  {
    name: 'A.5',
    ikm: range(0x00, 80),
    salt: range(0x60, 80),
    info: range(0xb0, 80),
    length: 82,
    okm: `0bd770a74d1160f7c9f12cd5912a06ebff6adcae899d92191fe4305673ba2ffe8fa3f1a4e5ad79f3f334b3b202b2173c486ea37ce3d397ed034c7f9dfeb15c5e927336d0441f4c4300e2cff0d0900b52d3b4`,
  },
  {
    name: 'A.6',
    ikm: Buffer.alloc(22, 0x0b),
    salt: Buffer.alloc(0),
    info: Buffer.alloc(0),
    length: 42,
    okm: '0ac1af7002b3d761d1e55298da9d0506b9ae52057220a306e07b6b87e8df21d0ea00033de03984d34918',
  },
  {
    name: 'A.7',
    ikm: Buffer.alloc(22, 0x0c),
    salt: Buffer.alloc(20),
    info: Buffer.alloc(0),
    length: 42,
    okm: '2c91117204d745f3500d636a62f64f0ab3bae548aa53d423b0d1f27ebba6f5e5673a081d70cce7acfc48',
  },
];

test("HKDF-SHA1 gives RFC 5869's SHA-1 answers", () => {
  for (const { name, ikm, salt, info, length, okm } of RFC5869) {
    assert.equal(createHkdfSha1(ikm, info, length)(salt).toString('hex'), hex(okm).toString('hex'), name);
  }
});

test('HKDF-SHA1 equals hkdfSync for random keys, salts, info and lengths, salt after salt', () => {
  for (let round = 0; round < 300; round++) {
    const ikm = randomBytes(randomInt(0, 150));
    const info = round % 2 ? randomBytes(randomInt(0, 150)) : 'ss-subkey';
    const length = randomInt(1, 120);
    const derive = createHkdfSha1(ikm, info, length);
    for (let i = 0; i < 4; i++) {
      const salt = randomBytes(randomInt(0, 150));
      assert.deepEqual(
        derive(salt),
        Buffer.from(hkdfSync('sha1', ikm, salt, info, length)),
        `ikm ${ikm.length} B, salt ${salt.length} B, info ${info.length}, length ${length}`,
      );
    }
  }
});

test('HKDF-SHA1 hands out a buffer of its own each time and refuses more than 255 blocks', () => {
  const derive = createHkdfSha1(Buffer.alloc(32, 1), 'ss-subkey', 32);
  const first = derive(Buffer.alloc(32, 2));
  const copy = Buffer.from(first);
  derive(Buffer.alloc(32, 3));
  assert.deepEqual(first, copy);
  assert.throws(() => createHkdfSha1(Buffer.alloc(32), 'x', 255 * 20 + 1), /at most 5100 bytes/);
});
