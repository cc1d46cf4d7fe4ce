import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { addLittleEndian } from '../lib/crypto/nonce.js';
import { createChunkOpener, createChunkSealer } from '../lib/wire/aead-chunks.js';
import { createByteQueue } from '../lib/wire/byte-queue.js';

// Every SIP004 payload length against node:crypto's records, for the three
// AES-GCM methods: 49,149 records, about 11 s on a 2-core machine, so it
// runs with the slow tier, not with test/unit/'s seconds
// (crypto-short-records.test.js there holds the short-record vectors).
test("SIP004 chunks of every payload length 1 to 16,383 (a chunk holds at most 0x3FFF) equal node:crypto's AES-GCM records, and open only whole", () => {
  // Small payloads are sealed by our own GHASH (smallPayloads), larger ones
  // by node:crypto: either way the bytes must be the standard
  // construction's, here built record by record with createCipheriv.
  for (const method of ['aes-128-gcm', 'aes-192-gcm', 'aes-256-gcm']) {
    const spec = AEAD_METHODS[method];
    const subkey = randomBytes(spec.keyLength);
    const key = spec.importKey(subkey);
    const seal = createChunkSealer(spec, subkey, key, { firstNonce: 0, chunkSize: () => 0x3fff });
    const open = createChunkOpener(spec, subkey, key, { firstNonce: 0 });
    const nonce = Buffer.alloc(12);
    const standard = (plaintext) => {
      const cipher = createCipheriv(method, key, nonce, { authTagLength: 16 });
      const record = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      addLittleEndian(nonce, 1);
      return record;
    };
    for (let n = 1; n <= 0x3fff; n++) {
      const payload = randomBytes(n);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(Math.min(n, 0x3fff));
      const pieces = [];
      seal(payload, (piece) => pieces.push(piece));
      const wire = Buffer.concat(pieces);
      const expected = Buffer.concat([standard(length), standard(payload)]);
      if (!wire.equals(expected)) assert.fail(`${method}: payload of ${n} bytes sealed differently from node:crypto`);
      const queue = createByteQueue();
      queue.push(wire);
      const opened = [];
      open(queue, (plaintext) => opened.push(plaintext));
      if (!Buffer.concat(opened).equals(payload))
        assert.fail(`${method}: payload of ${n} bytes did not open to itself`);
    }
    // Length 0, which no SIP004 chunk carries but the record type allows.
    const empty = Buffer.alloc(16);
    spec
      .shortRecords(subkey, key, { offset: 0, step: 2 })
      .smallPayloads.sealInto(nonce.fill(0), Buffer.alloc(0), empty, 0);
    assert.deepEqual(empty, standard(Buffer.alloc(0)), `${method}: the empty record`);
    // A flipped bit anywhere in a small record is refused, whatever its place.
    const flipSeal = createChunkSealer(spec, subkey, key, { firstNonce: 0, chunkSize: () => 0x3fff });
    const pieces = [];
    flipSeal(randomBytes(100), (piece) => pieces.push(piece));
    const wire = Buffer.concat(pieces);
    for (let at = 18; at < wire.length; at += 7) {
      const flipped = Buffer.from(wire);
      flipped[at] ^= 1 << (at % 8);
      const queue = createByteQueue();
      queue.push(flipped);
      const opener = createChunkOpener(spec, subkey, key, { firstNonce: 0 });
      assert.throws(
        () => opener(queue, () => {}),
        /AEAD tag mismatch in a payload chunk/,
        `${method}: a flip at byte ${at}`,
      );
    }
  }
});
