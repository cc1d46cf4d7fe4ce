import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSocketList } from '../../lib/relay/socket-list.js';

// What the list exists for: a node that leaves points at nothing, so an
// old one cannot keep a young socket alive through a scavenge.
test('a removed node is emptied and the rest stay in order', () => {
  const list = createSocketList();
  const nodes = ['a', 'b', 'c', 'd'].map((item) => list.add(item));
  list.remove(nodes[1]);
  assert.deepEqual(nodes[1], { item: null, prev: null, next: null });
  assert.deepEqual(list.items(), ['a', 'c', 'd']);
  assert.equal(list.size, 3);
  // Twice, or after the socket was shifted out: nothing changes.
  list.remove(nodes[1]);
  assert.equal(list.shift(), 'a');
  assert.deepEqual(nodes[0], { item: null, prev: null, next: null });
  list.remove(nodes[0]);
  assert.deepEqual(list.items(), ['c', 'd']);
  assert.equal(list.size, 2);
});

test('shift takes the oldest, and nothing from an empty list', () => {
  const list = createSocketList();
  assert.equal(list.shift(), null);
  list.add(1);
  list.add(2);
  assert.equal(list.shift(), 1);
  assert.equal(list.shift(), 2);
  assert.equal(list.shift(), null);
  assert.equal(list.size, 0);
});

test('clear empties every node; a later remove of one is a no-op', () => {
  const list = createSocketList();
  const nodes = [1, 2, 3].map((item) => list.add(item));
  list.clear();
  for (const node of nodes) assert.deepEqual(node, { item: null, prev: null, next: null });
  list.remove(nodes[2]);
  assert.equal(list.size, 0);
  assert.deepEqual(list.items(), []);
  list.add(4);
  assert.deepEqual(list.items(), [4]);
});

test('items() is a copy: removing while walking it is safe', () => {
  const list = createSocketList();
  const nodes = new Map([1, 2, 3].map((item) => [item, list.add(item)]));
  for (const item of list.items()) list.remove(nodes.get(item));
  assert.equal(list.size, 0);
  assert.deepEqual(list.items(), []);
});
