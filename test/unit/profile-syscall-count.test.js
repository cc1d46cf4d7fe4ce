import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseStraceSummary } from '../../lib/profile/syscall-count.js';

const fixture = (name) => readFileSync(new URL(`../fixtures/profile/${name}`, import.meta.url), 'utf8');

// Real `strace -c -f` tables (test/fixtures/profile/README.md): a header,
// dashed rules, one row per system call and a total row, which is not a
// system call.
test('strace -c: calls per system call of our relay server, the total left out', () => {
  assert.deepEqual(parseStraceSummary(fixture('relay-server-aes-256-gcm.strace')), {
    writev: 3212,
    read: 3217,
    write: 2,
  });
});

test("strace -c: shadowsocks-libev's ss-server reads and writes with recvfrom and sendto", () => {
  assert.deepEqual(parseStraceSummary(fixture('ss-server-aes-256-gcm.strace')), { sendto: 6404, recvfrom: 7263 });
});

// A row whose calls failed has an errors column before the name; the
// calls column is the fourth either way, and failed calls count as calls.
test('strace -c: a row with its errors column filled still gives its calls', () => {
  assert.deepEqual(parseStraceSummary(fixture('cat-directory.strace')), { write: 4, read: 4 });
});

// Made by hand in the table's shape: no system call was traced.
test('strace -c: a table with no rows gives no calls', () => {
  const empty = [
    '% time     seconds  usecs/call     calls    errors syscall',
    '------ ----------- ----------- --------- --------- ----------------',
    '------ ----------- ----------- --------- --------- ----------------',
    '100.00    0.000000           0         0           total',
    '',
  ].join('\n');
  assert.deepEqual(parseStraceSummary(empty), {});
});
