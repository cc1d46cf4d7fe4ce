import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapRatioInterval, mannWhitneyP } from '../../lib/statistics/significance.js';

test('Mann-Whitney U: exact one-sided p-values from the published table', () => {
  // Every new run below every old one: 1 / C(m + n, m).
  assert.equal(mannWhitneyP([4, 5, 6], [1, 2, 3], { lower: true }), 1 / 20);
  assert.equal(mannWhitneyP([6, 7, 8, 9, 10], [1, 2, 3, 4, 5], { lower: true }), 1 / 252);
  // m = n = 4, U = 1: P(U <= 1) = 2 / 70 (Mann and Whitney 1947, table I).
  assert.equal(mannWhitneyP([2, 4, 5, 6], [1, 3, 0.5, 0.2], { lower: true }), 2 / 70);
  // The same data asked the other way round is no evidence at all.
  assert.equal(mannWhitneyP([4, 5, 6], [1, 2, 3], { lower: false }), 1);
  // Unequal sizes: 3 old, 5 new, all new below: 1 / C(8, 3).
  assert.equal(mannWhitneyP([10, 11, 12], [1, 2, 3, 4, 5], { lower: true }), 1 / 56);
  // Identical sets sit in the middle.
  assert.equal(mannWhitneyP([1, 2, 3], [1, 2, 3], { lower: true }), 0.5);
});

test('bootstrap interval of the ratio of medians: repeatable, and around the true ratio', () => {
  const before = [100, 103, 98, 101, 99, 102, 97];
  const after = before.map((value) => value * 0.8);
  const first = bootstrapRatioInterval(before, after);
  assert.deepEqual(bootstrapRatioInterval(before, after), first, 'the same inputs give the same interval');
  assert.ok(first.low < 0.8 && 0.8 < first.high, JSON.stringify(first));
  assert.ok(first.high - first.low < 0.1, 'seven quiet runs a side give a narrow interval');
  const one = bootstrapRatioInterval([2], [1]);
  assert.deepEqual(one, { low: 0.5, high: 0.5 });
});
