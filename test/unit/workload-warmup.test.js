import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warmupTransfers } from '../../lib/workload/bulk.js';

test("--warmup's seconds: two transfers from 2 s on, so that the counted one is a relay's third connection", () => {
  assert.deepEqual(warmupTransfers(0), []);
  assert.deepEqual(warmupTransfers(1), [1]);
  assert.deepEqual(warmupTransfers(2), [1, 1]);
  assert.deepEqual(warmupTransfers(3), [2, 1]);
  assert.deepEqual(warmupTransfers(6), [3, 3]);
});
