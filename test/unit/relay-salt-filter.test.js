import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { CLIENT_FILTER, createSaltFilter, SERVER_FILTER } from '../../lib/relay/salt-filter.js';

test('every salt is accepted once and refused after, at the server and client sizes', () => {
  for (const size of [SERVER_FILTER, CLIENT_FILTER]) {
    const filter = createSaltFilter(size);
    const salts = Array.from({ length: 5000 }, () => randomBytes(32));
    for (const salt of salts) assert.equal(filter.add(salt), true);
    for (const salt of salts) assert.equal(filter.add(salt), false);
    assert.equal(filter.refused, salts.length);
  }
});

test('the filter pair remembers the latest half of its entries to all of them, then forgets the oldest', () => {
  const filter = createSaltFilter({ entries: 1000, falsePositiveRate: 1e-6 });
  const salts = Array.from({ length: 1500 }, () => randomBytes(16));
  for (const salt of salts) filter.add(salt);
  // 1,500 added into halves of 500: the first 500 were cleared when the
  // third half began; the last 1,000 are remembered.
  assert.ok(
    salts.slice(500).every((salt) => !filter.add(salt)),
    'the latest 1,000 are remembered',
  );
  const forgotten = salts.slice(0, 500).filter((salt) => filter.add(salt)).length;
  assert.ok(forgotten > 490, `${forgotten} of the oldest 500 forgotten`);
});

// Where the bits are few and the hashes many, positions that depend on one
// another (two words and a step) refused fresh salts some 60 times as
// often as configured: 1e-6 here, so 200,000 salts should see none.
test('a small filter with many hashes keeps to its rate: a full 1,000 at 1e-6 refuses almost no fresh salt', () => {
  const filter = createSaltFilter({ entries: 1000, falsePositiveRate: 1e-6 });
  for (let i = 0; i < 1500; i++) filter.add(randomBytes(16));
  let refused = 0;
  const tries = 200_000;
  // One draw for every fresh salt: 200,000 calls of randomBytes were most
  // of this test's seconds, and the filter keeps no reference to a salt.
  const fresh = randomBytes(16 * tries);
  for (let i = 0; i < tries; i++) if (!filter.add(fresh.subarray(16 * i, 16 * i + 16))) refused += 1;
  assert.ok(refused < 5, `${refused} of ${tries} fresh salts refused`);
});

test('fresh salts are refused at about the configured false-positive rate', () => {
  const filter = createSaltFilter({ entries: 20_000, falsePositiveRate: 1e-3 });
  for (let i = 0; i < 10_000; i++) filter.add(randomBytes(32));
  let refused = 0;
  const tries = 20_000;
  for (let i = 0; i < tries; i++) if (!filter.add(randomBytes(32))) refused += 1;
  // A full half at 1e-3 refuses about 20 of 20,000; a filter whose bits
  // never stick would refuse none of the replays above, one that sets too
  // many would refuse hundreds here.
  assert.ok(refused < 100, `${refused} of ${tries} fresh salts refused`);
});
