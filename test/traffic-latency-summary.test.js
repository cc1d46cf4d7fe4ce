import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summariseLatency } from '../lib/traffic/latency-summary.js';

test('a latency summary: nearest-rank percentiles over the samples in any order, which it leaves as they were', () => {
  const samples = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  const summary = summariseLatency(samples);
  assert.deepEqual(summary, { count: 10, unit: 'ms', mean: 5.5, p50: 5, p90: 9, p99: 10, p999: 10, max: 10 });
  assert.deepEqual(samples, [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
});
