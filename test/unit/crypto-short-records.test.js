import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { AEAD_METHODS } from '../../lib/crypto/aead-methods.js';
import { createGhashMultiplier } from '../../lib/crypto/ghash.js';
import { addLittleEndian } from '../../lib/crypto/nonce.js';
import { poly1305 } from '../../lib/crypto/poly1305.js';

const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const mac = (key, message) => {
  const out = Buffer.alloc(16);
  poly1305(key, message, out);
  return out;
};

test('Poly1305 passes RFC 8439 2.5.2 and the edge cases of its appendix A.3', () => {
  assert.deepEqual(
    mac(
      hex('85d6be7857556d337f4452fe42d506a8 0103808afb0db2fd4abff6af4149f51b'),
      Buffer.from('Cryptographic Forum Research Group'),
    ),
    hex('a8061dc1305136c6c22b8baf0c0127a9'),
  );
  // Each tag also checked with Python cryptography 48 (Poly1305.generate_tag).
  const r1 = '01' + '00'.repeat(15);
  const r2 = '02' + '00'.repeat(15);
  const zero = '00'.repeat(16);
  const cases = [
    // h reaches 2^130 - 5 + 3: the final reduction must subtract p.
    [r2 + zero, 'ff'.repeat(16), '03' + '00'.repeat(15)],
    [r1 + zero, 'ff'.repeat(16) + 'f0' + 'ff'.repeat(15) + '11' + '00'.repeat(15), '05' + '00'.repeat(15)],
    // h equals p exactly.
    [r1 + zero, 'ff'.repeat(16) + 'fb' + 'fe'.repeat(15) + '01'.repeat(16), '00'.repeat(16)],
    // A short block (the 0x01 pad byte) that wraps.
    [r2 + zero, 'fd' + 'ff'.repeat(15), 'fa' + 'ff'.repeat(15)],
    // s added modulo 2^128.
    [r2 + 'ff'.repeat(16), '02' + '00'.repeat(15), '03' + '00'.repeat(15)],
  ];
  for (const [key, message, tag] of cases) assert.deepEqual(mac(hex(key), hex(message)), hex(tag), `key ${key}`);
});

test('GHASH multiplication: H times 1 is H, it is linear, and its 8-bit table (after 64 products) agrees with its 4-bit one', () => {
  const h = randomBytes(16);
  const fresh = createGhashMultiplier(h);
  const used = createGhashMultiplier(h);
  // Past UPGRADE_AFTER (64) products, `used` steps a byte at a time.
  for (let i = 0; i < 65; i++) used(1, 2, 3, 4);
  const words = (x) => [0, 4, 8, 12].map((i) => x.readInt32BE(i));
  for (const multiply of [fresh, used]) {
    // 1 in GCM's bit order is the block 0x80 00 .. 00.
    const one = multiply(0x80000000 | 0, 0, 0, 0);
    assert.deepEqual(Buffer.from(Int32Array.from(one, (w) => w).buffer).swap32(), h);
    const a = randomBytes(16);
    const b = randomBytes(16);
    const xor = Buffer.from(a.map((v, i) => v ^ b[i]));
    const pa = [...multiply(...words(a))];
    const pb = [...multiply(...words(b))];
    const pxor = [...multiply(...words(xor))];
    assert.deepEqual(
      pxor,
      pa.map((w, i) => w ^ pb[i]),
    );
  }
  // `fresh` stays below 64 products here: both tables, block by block.
  for (let i = 0; i < 40; i++) {
    const x = words(randomBytes(16));
    assert.deepEqual([...used(...x)], [...fresh(...x)], `block ${i}`);
  }
});

test('little-endian nonce arithmetic carries across bytes', () => {
  assert.deepEqual(addLittleEndian(hex('fe ff 00'), 2), hex('00 00 01'));
  assert.deepEqual(addLittleEndian(hex('ff 00 00'), 1), hex('00 01 00'));
  assert.deepEqual(addLittleEndian(hex('00 00 00'), 258), hex('02 01 00'));
});

// The reference: one node:crypto AEAD object per record.
function referenceSeal(method, key, nonce, plaintext) {
  const cipher = method.seal(method.importKey(key), nonce);
  const ciphertext = cipher.update(plaintext);
  cipher.final();
  return Buffer.concat([ciphertext, cipher.getAuthTag()]);
}

for (const [name, method] of Object.entries(AEAD_METHODS)) {
  test(`${name}: short records equal node:crypto's, record by record, and tampering is refused`, () => {
    let records = 0;
    // Offsets near 0xff so that the nonce counter carries into higher bytes
    // while a batch of prepared records is being used.
    for (const offset of [0, 1, 0xf0, 0xfffe, randomInt(1 << 24)]) {
      for (const step of [1, 2, 3]) {
        const key = randomBytes(method.keyLength);
        const sealer = method.shortRecords(key, method.importKey(key), { offset, step });
        const opener = method.shortRecords(key, method.importKey(key), { offset, step });
        const nonce = addLittleEndian(Buffer.alloc(method.nonceLength), offset);
        for (let i = 0; i < 40; i++) {
          const plaintext = randomBytes(i % 17);
          const expected = referenceSeal(method, key, nonce, plaintext);
          addLittleEndian(nonce, step);
          const sealed = Buffer.alloc(plaintext.length + 16);
          sealer.seal(plaintext, sealed, 0);
          assert.deepEqual(sealed, expected, `offset ${offset} step ${step} record ${i}`);
          const opened = Buffer.alloc(plaintext.length);
          if (i % 3 === 2) {
            const tampered = Buffer.from(expected);
            tampered[randomInt(tampered.length)] ^= 1 << randomInt(8);
            assert.equal(opener.open(tampered, opened), false, 'a flipped bit must not open');
          } else {
            assert.equal(opener.open(expected, opened), true);
            assert.deepEqual(opened, plaintext);
          }
          records++;
        }
      }
    }
    assert.equal(records, 5 * 3 * 40);
  });
}

for (const name of ['aes-128-gcm', 'aes-256-gcm']) {
  test(`${name}: small payloads in sequence (blocks encrypted ahead) equal node:crypto's, across skipped nonces, growing sizes and carries`, () => {
    const method = AEAD_METHODS[name];
    let records = 0;
    // 2^32 - 5: the run's expected nonce carries out of its lowest 32-bit
    // word; 2^64 - 3: out of the second.
    for (const offset of [1, 0xfd, 2 ** 32 - 5, 2n ** 64n - 3n]) {
      for (const step of [1, 2, 3]) {
        const key = randomBytes(method.keyLength);
        const sealer = method.shortRecords(key, method.importKey(key), { offset: 0, step }).smallPayloads;
        const opener = method.shortRecords(key, method.importKey(key), { offset: 0, step }).smallPayloads;
        const nonce = Buffer.alloc(12);
        if (typeof offset === 'bigint') nonce.writeBigUInt64LE(offset);
        else addLittleEndian(nonce, offset);
        for (let i = 0; i < 120; i++) {
          // Runs of in-sequence records (a kept-alive stream), sizes that
          // grow within a run, and now and then a nonce skipped (a large
          // record node:crypto sealed) or a payload past 256 bytes' blocks.
          if (i % 37 === 36) addLittleEndian(nonce, step);
          const n = i < 40 ? 40 : i < 80 ? randomInt(257) : Math.min(256, 16 * (i - 80));
          const plaintext = randomBytes(n);
          const expected = referenceSeal(method, key, nonce, plaintext);
          const sealed = Buffer.alloc(n + 16);
          sealer.sealInto(nonce, plaintext, sealed, 0);
          assert.deepEqual(sealed, expected, `offset ${offset} step ${step} record ${i} (${n} bytes)`);
          if (i % 5 === 4) {
            const tampered = Buffer.from(expected);
            tampered[randomInt(tampered.length)] ^= 1 << randomInt(8);
            assert.equal(opener.open(nonce, tampered), null, 'a flipped bit must not open');
          }
          assert.deepEqual(opener.open(nonce, expected), plaintext);
          addLittleEndian(nonce, step);
          records++;
        }
      }
    }
    assert.equal(records, 4 * 3 * 120);
  });
}

test('a short record refuses more than 16 bytes instead of sealing them wrongly', () => {
  const method = AEAD_METHODS['aes-256-gcm'];
  const key = randomBytes(32);
  const sealer = method.shortRecords(key, method.importKey(key), { offset: 0, step: 2 });
  assert.throws(() => sealer.seal(Buffer.alloc(17), Buffer.alloc(33), 0), RangeError);
  assert.throws(() => sealer.open(Buffer.alloc(33), Buffer.alloc(17)), RangeError);
});

test('the wire format did not change: a chunk sealed with node:crypto alone opens through the preset', async () => {
  // Independent of short-records.js: salt, then [length][payload] sealed the
  // SIP004 way with one createCipheriv per record, nonces 0, 1, 2, 3.
  const { default: preset } = await import('../../lib/presets/ss-aead-cipher.js');
  const { evpBytesToKey } = await import('../../lib/crypto/evp-bytes-to-key.js');
  const { deriveSubkey } = await import('../../lib/crypto/hkdf-subkey.js');
  for (const name of Object.keys(AEAD_METHODS)) {
    const method = AEAD_METHODS[name];
    const salt = randomBytes(method.saltLength);
    const subkey = deriveSubkey(evpBytesToKey('pw', method.keyLength), salt);
    const nonce = Buffer.alloc(method.nonceLength);
    const seal = (plaintext) => {
      const record = referenceSeal(method, subkey, nonce, plaintext);
      addLittleEndian(nonce, 1);
      return record;
    };
    const payloads = [randomBytes(100), randomBytes(0x3fff)];
    const wire = [salt];
    for (const payload of payloads) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(payload.length);
      wire.push(seal(length), seal(payload));
    }
    const { serverDecode } = preset.prepare({ method: name }, { password: 'pw' })({ salts: { add: () => true } });
    const received = [];
    serverDecode(Buffer.concat(wire), (data) => received.push(data));
    assert.deepEqual(Buffer.concat(received), Buffer.concat(payloads), name);
    // The other way: what the preset seals opens with node:crypto alone.
    const { clientEncode } = preset.prepare({ method: name }, { password: 'pw' })({ salts: { add: () => true } });
    const sent = [];
    clientEncode(payloads[1], (data) => sent.push(data));
    const bytes = Buffer.concat(sent);
    const theirSubkey = deriveSubkey(evpBytesToKey('pw', method.keyLength), bytes.subarray(0, method.saltLength));
    const open = (record, n) => {
      const decipher = method.open(method.importKey(theirSubkey), addLittleEndian(Buffer.alloc(method.nonceLength), n));
      decipher.setAuthTag(record.subarray(record.length - 16));
      const plaintext = decipher.update(record.subarray(0, record.length - 16));
      decipher.final();
      return plaintext;
    };
    const at = method.saltLength;
    assert.equal(open(bytes.subarray(at, at + 18), 0).readUInt16BE(0), 0x3fff);
    assert.deepEqual(open(bytes.subarray(at + 18, at + 18 + 0x3fff + 16), 1), payloads[1]);
  }
});
