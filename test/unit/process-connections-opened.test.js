import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openedBetween } from '../../lib/process/connections-opened.js';

// Two readings of the kernel's tables, 2 s apart: a connection in
// TIME_WAIT with more than 58 s left closed since the first, whatever its
// port pair (loopback reuses pairs); one open in the second and not in the
// first opened since.
const reading = (at, live, timeWait) => ({
  startedAt: at,
  finishedAt: at + 10,
  live: new Set(live),
  timeWait: new Map(Object.entries(timeWait)),
});

test('connections opened between two readings of the tables', () => {
  const before = reading(0, ['a'], { b: 30, c: 59.99 });
  const after = reading(2_000, ['a', 'd', 'e'], { b: 28, c: 59.5, f: 58.5, g: 57.9 });
  // c's pair was reused and closed again (59.5 s left), f closed since, d
  // and e opened since; a was open before, b and g closed before.
  assert.equal(openedBetween(before, after), 4);
  assert.equal(openedBetween(null, after), null);
  assert.equal(openedBetween(before, null), null);
});
