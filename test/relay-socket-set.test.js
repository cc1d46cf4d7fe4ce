import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { createSocketSet } from '../lib/relay/listener.js';

// A closed socket keeps no listener of its connection (what it would drag
// through a scavenge, docs/notes/gc-promotion.md), only after every
// 'close' listener has run, and an error after that throws nothing.
test('a closed socket is left with no listener but one that ignores errors', async (t) => {
  const server = net.createServer();
  t.after(() => server.close());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const set = createSocketSet();
  const socket = set.add(net.connect(server.address().port, '127.0.0.1'));
  const [accepted] = await once(server, 'connection');
  const heard = [];
  socket.on('data', () => heard.push('data'));
  socket.on('end', () => heard.push('end'));
  socket.on('close', () => heard.push('close, after the set removed it'));
  assert.equal(set.size, 1);
  accepted.end();
  await once(socket, 'end');
  socket.end();
  await once(socket, 'close');
  assert.deepEqual(heard, ['end', 'close, after the set removed it']);
  assert.equal(set.size, 0);
  await nextTurn();
  assert.deepEqual(
    socket.eventNames().map((name) => [name, socket.listenerCount(name)]),
    [['error', 1]],
  );
  socket.emit('error', new Error('late'));
});
