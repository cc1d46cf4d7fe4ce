import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { AEAD_2022_METHODS } from '../lib/crypto/aead-2022-methods.js';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import { measureCipherCeiling } from '../lib/runner/cipher-ceiling.js';
import { CLI } from './support/processes.js';

const ciphers = (...args) => spawnSync(process.execPath, [CLI, 'ciphers', ...args], { encoding: 'utf8', timeout: 60_000 });

test('the ceiling counts the plaintext bytes that went through, per CPU second', () => {
  const [row] = measureCipherCeiling({
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }],
    sizes: [4096],
    minSeconds: 0.05,
  });
  assert.equal(row.size, 4096);
  for (const direction of [row.encrypt, row.decrypt]) {
    assert.ok(direction.bytes > 0 && direction.bytes % 4096 === 0, `whole reads only: ${direction.bytes}`);
    assert.ok(direction.cpuSeconds >= 0.05);
    assert.equal(direction.bits_per_second, (direction.bytes * 8) / direction.cpuSeconds);
  }
});

test('cipherbench ciphers --json measures every method, the legacy ones in a child of their own', () => {
  const result = ciphers('--json', '--size', '1k,16k', '--time', '0.02');
  assert.equal(result.status, 0, result.stderr);
  const ceilings = JSON.parse(result.stdout);
  assert.deepEqual(ceilings.map((c) => c.method), [...Object.keys(STREAM_METHODS), ...Object.keys(AEAD_METHODS), ...Object.keys(AEAD_2022_METHODS)]);
  for (const { method, sizes } of ceilings) {
    assert.deepEqual(sizes.map((s) => s.size), [1024, 16384], method);
    for (const { encrypt, decrypt } of sizes) assert.ok(encrypt.bits_per_second > 0 && decrypt.bits_per_second > 0, method);
  }
  // A per-chunk cost dominates small reads: an AEAD method carries more
  // per CPU second in 16 KB reads than in 1 KB ones.
  const gcm = ceilings.find((c) => c.method === 'aes-256-gcm').sizes;
  assert.ok(gcm[1].encrypt.bits_per_second > gcm[0].encrypt.bits_per_second);
});

test('the table names every method and size; bad input exits 2', () => {
  const table = ciphers('--size', '16k', '--time', '0.02', '--methods', 'aes-256-ctr,chacha20-ietf-poly1305');
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /^method\s+size\s+encrypt\s+decrypt\n/);
  assert.match(table.stdout, /aes-256-ctr\s+16k\s+[\d.]+ [GM]bits\/sec\s+[\d.]+ [GM]bits\/sec/);
  for (const [args, message] of [
    [['--size', '0'], /--size: "0" is not a size/],
    [['--methods', 'aes-999'], /--methods: unknown aes-999; valid: aes-128-ctr/],
    [['--time', '-1'], /--time must be/],
  ]) {
    const bad = ciphers(...args);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, message);
  }
});
