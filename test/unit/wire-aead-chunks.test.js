import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { AEAD_METHODS, TAG_LENGTH } from '../../lib/crypto/aead-methods.js';
import { addLittleEndian } from '../../lib/crypto/nonce.js';
import { SMALL_PAYLOAD } from '../../lib/crypto/short-records.js';
import { createChunkOpener, createChunkSealer, LENGTH_RECORD } from '../../lib/wire/aead-chunks.js';
import { createByteQueue } from '../../lib/wire/byte-queue.js';
import { assertEverySplit } from '../support/splits.js';

// The chunk stream ss-aead-cipher (SIP004), ss-2022 (SIP022's body) and
// aead-random-cipher share. The reference here is the specs' construction
// written out record by record: every length and every payload sealed with
// its own cipher object under nonce firstNonce, firstNonce + 1, ... (for
// the four OpenSSL methods, node:crypto's createCipheriv itself), so the
// sealer's short-record lengths and its nonce bookkeeping are checked
// against it byte for byte. The interop tests check the same bytes against
// shadowsocks-libev and shadowsocks-rust.
const SIP004 = { firstNonce: 0, chunkSize: () => 0x3fff };
const SIP022_BODY = { firstNonce: 2, chunkSize: (n) => Math.ceil(n / Math.ceil(n / 0xffff)) };

// Deterministic key bytes, so a failure reproduces.
const bytes = (label, n) => {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i += 32) createHash('sha256').update(`${label}/${i}`).digest().copy(out, i);
  return out;
};

const keysOf = (method) => {
  const subkey = bytes('subkey', method.keyLength);
  return { subkey, key: method.importKey(subkey) };
};

// The wire for `reads` as the specs define it: per read, chunks of
// chunkSize(read length) bytes, each [seal(length)][seal(payload)].
function reference(method, { firstNonce, chunkSize }, reads) {
  const { key } = keysOf(method);
  const nonce = addLittleEndian(Buffer.alloc(method.nonceLength), firstNonce);
  const sealOne = (plaintext) => {
    const cipher = method.seal(key, nonce);
    const ciphertext = cipher.update(plaintext);
    cipher.final();
    addLittleEndian(nonce, 1);
    return Buffer.concat([ciphertext, cipher.getAuthTag()]);
  };
  const out = [];
  for (const read of reads) {
    if (read.length === 0) continue;
    const size = chunkSize(read.length);
    for (let offset = 0; offset < read.length; offset += size) {
      const payload = read.subarray(offset, offset + size);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(payload.length);
      out.push(sealOne(length), sealOne(payload));
    }
  }
  return Buffer.concat(out);
}

const sealAll = (method, options, reads) => {
  const { subkey, key } = keysOf(method);
  const seal = createChunkSealer(method, subkey, key, options);
  const out = [];
  for (const read of reads) seal(read, (piece) => out.push(Buffer.from(piece)));
  return Buffer.concat(out);
};

const openAll = (method, options, pieces) => {
  const { subkey, key } = keysOf(method);
  const open = createChunkOpener(method, subkey, key, options);
  const queue = createByteQueue();
  const out = [];
  for (const piece of pieces) {
    queue.push(piece);
    open(queue, (payload) => out.push(Buffer.from(payload)));
  }
  return { out, open, queue };
};

// 0x4000 is one byte over a SIP004 chunk, 65536 one over two SIP022 ones;
// the reads follow each other, so the nonces must run on across them.
const READS = [1, 0x3fff, 0x4000, 0, 65536, 17].map((n, i) => bytes(`read ${i}`, n));

for (const name of Object.keys(AEAD_METHODS)) {
  const method = AEAD_METHODS[name];
  test(`${name}: SIP004 chunks (nonces from 0, 0x3FFF bytes) are the record-by-record construction's, byte for byte`, () => {
    assert.deepEqual(sealAll(method, SIP004, READS), reference(method, SIP004, READS));
  });
  test(`${name}: SIP022 body chunks (nonces from 2, equal chunks of up to 0xFFFF) are the construction's, byte for byte`, () => {
    assert.deepEqual(sealAll(method, SIP022_BODY, READS), reference(method, SIP022_BODY, READS));
  });
  test(`${name}: the opener reads the reference stream back, whole and in reads of 1000 bytes`, () => {
    const wire = reference(method, SIP004, READS);
    const whole = openAll(method, { firstNonce: 0 }, [wire]);
    assert.deepEqual(Buffer.concat(whole.out), Buffer.concat(READS));
    assert.equal(whole.queue.length, 0);
    const pieces = [];
    for (let at = 0; at < wire.length; at += 1000) pieces.push(wire.subarray(at, at + 1000));
    assert.deepEqual(Buffer.concat(openAll(method, { firstNonce: 0 }, pieces).out), Buffer.concat(READS));
  });
}

const method = AEAD_METHODS['aes-256-gcm'];

test('the opener takes a stream cut anywhere, SIP022 nonces', () => {
  const reads = [Buffer.from('hello'), Buffer.from(' world, in two chunks')];
  const wire = reference(method, SIP022_BODY, reads);
  assertEverySplit(assert, wire, (pieces) => openAll(method, { firstNonce: 2 }, pieces).out, Buffer.concat(reads));
});

test('checkLength sees every length once it authenticates, before its payload arrives, and may refuse it', () => {
  const wire = reference(method, SIP004, [Buffer.alloc(0x4000)]);
  const seen = [];
  const { open } = openAll(method, { firstNonce: 0, checkLength: (n) => seen.push(n) }, [
    wire.subarray(0, LENGTH_RECORD),
  ]);
  assert.deepEqual(seen, [0x3fff]);
  assert.equal(open.awaitingPayload(), true);
  assert.throws(
    () =>
      openAll(
        method,
        {
          firstNonce: 0,
          checkLength: () => {
            throw new Error('refused');
          },
        },
        [wire],
      ),
    /refused/,
  );
});

test('awaitingPayload is false between chunks and true inside one', () => {
  const wire = reference(method, SIP004, [Buffer.from('abc')]);
  assert.equal(openAll(method, { firstNonce: 0 }, [wire]).open.awaitingPayload(), false);
  assert.equal(openAll(method, { firstNonce: 0 }, [wire.subarray(0, LENGTH_RECORD + 1)]).open.awaitingPayload(), true);
  assert.equal(openAll(method, { firstNonce: 0 }, [wire.subarray(0, LENGTH_RECORD - 1)]).open.awaitingPayload(), false);
});

test('an empty chunk pushes nothing when checkLength lets it through (SIP022 allows it)', () => {
  const { subkey, key } = keysOf(method);
  const sealAt = (counter, plaintext) => {
    const cipher = method.seal(key, addLittleEndian(Buffer.alloc(12), counter));
    const ciphertext = cipher.update(plaintext);
    cipher.final();
    return Buffer.concat([ciphertext, cipher.getAuthTag()]);
  };
  // A zero-length chunk under nonces 2 and 3, then 'x' under 4 and 5.
  const wire = Buffer.concat([
    sealAt(2, Buffer.from([0, 0])),
    sealAt(3, Buffer.alloc(0)),
    sealAt(4, Buffer.from([0, 1])),
    sealAt(5, Buffer.from('x')),
  ]);
  const pushed = [];
  const queue = createByteQueue();
  queue.push(wire);
  createChunkOpener(method, subkey, key, { firstNonce: 2 })(queue, (data) => pushed.push(Buffer.from(data)));
  assert.deepEqual(pushed, [Buffer.from('x')]);
});

test('a flipped bit in a length record or a payload record is refused as a tag mismatch of that record', () => {
  const wire = reference(method, SIP004, [Buffer.from('payload')]);
  const flipped = (at) => {
    const copy = Buffer.from(wire);
    copy[at] ^= 1;
    return copy;
  };
  assert.throws(() => openAll(method, { firstNonce: 0 }, [flipped(0)]), {
    code: 'ERR_CIPHERBENCH_PROTOCOL',
    message: /tag mismatch in a length chunk/,
  });
  assert.throws(() => openAll(method, { firstNonce: 0 }, [flipped(LENGTH_RECORD)]), {
    code: 'ERR_CIPHERBENCH_PROTOCOL',
    message: /tag mismatch in a payload chunk/,
  });
  assert.throws(
    () => openAll(method, { firstNonce: 0 }, [flipped(wire.length - 1)]),
    /tag mismatch in a payload chunk/,
  );
  // Under the other sequence's nonces nothing authenticates.
  assert.throws(() => openAll(method, { firstNonce: 2 }, [wire]), /tag mismatch in a length chunk/);
});

test('a payload of n bytes costs a length record and n + 16 bytes: one buffer when small, three pieces when large', () => {
  const { subkey, key } = keysOf(method);
  const pieces = (n) => {
    const pushed = [];
    createChunkSealer(method, subkey, key, SIP004)(Buffer.alloc(n), (piece) => pushed.push(piece.length));
    return pushed;
  };
  assert.deepEqual(pieces(100), [LENGTH_RECORD + 100 + TAG_LENGTH]);
  assert.deepEqual(pieces(SMALL_PAYLOAD), [LENGTH_RECORD + SMALL_PAYLOAD + TAG_LENGTH]);
  assert.deepEqual(pieces(SMALL_PAYLOAD + 1), [LENGTH_RECORD, SMALL_PAYLOAD + 1, TAG_LENGTH]);
});
