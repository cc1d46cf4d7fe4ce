import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { test } from 'node:test';
import { formatEndpoint, parseEndpoint } from '../lib/relay/endpoint.js';
import { createLog } from '../lib/relay/log.js';
import { isLoopbackHost } from '../lib/relay/loopback.js';
import { createWriteQueues } from '../lib/relay/write-queues.js';

// The relay's small pieces, each on its own; the relay as a whole is tested
// on loopback in relay-*.test.js.

test('endpoint: HOST:PORT, [IPv6]:PORT and a bare PORT, and nothing else', () => {
  assert.deepEqual(parseEndpoint('127.0.0.1:1082'), { host: '127.0.0.1', port: 1082 });
  assert.deepEqual(parseEndpoint('[::1]:1082'), { host: '::1', port: 1082 });
  assert.deepEqual(parseEndpoint('1082'), { host: '127.0.0.1', port: 1082 });
  assert.deepEqual(parseEndpoint('example.test:443'), { host: 'example.test', port: 443 });
  for (const bad of [
    '256.1.1.1:80',
    '1.2.3:80',
    '[zz]:80',
    '::1:80',
    ':80',
    'host:',
    'host:65536',
    'host:-1',
    'host:8o',
    '',
    undefined,
    80,
  ]) {
    assert.equal(parseEndpoint(bad), null, JSON.stringify(bad));
  }
  // Port 0 means "any free port": only where the caller listens.
  assert.equal(parseEndpoint('127.0.0.1:0'), null);
  assert.deepEqual(parseEndpoint('127.0.0.1:0', { anyPort: true }), { host: '127.0.0.1', port: 0 });
  assert.equal(formatEndpoint({ host: '::1', port: 7 }), '[::1]:7');
  assert.equal(formatEndpoint({ host: '127.0.0.1', port: 7 }), '127.0.0.1:7');
});

test('loopback: 127.0.0.0/8, ::1 in any spelling, ::ffff:127.x and localhost; no name is looked up', () => {
  for (const host of ['127.0.0.1', '127.255.0.9', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost']) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of [
    '128.0.0.1',
    '10.0.0.1',
    '::2',
    '::ffff:10.0.0.1',
    '0.0.0.0',
    '::',
    'localhost.',
    'example.test',
    '127.0.0.1.example.test',
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test('log: a level says its own lines and those above it, each with its name', () => {
  const lines = [];
  const log = createLog('warn', (line) => lines.push(line));
  log.error('a');
  log.warn('b');
  log.info('c');
  log.debug('d');
  assert.deepEqual(lines, ['error: a', 'warn: b']);
});

// A socket still connecting keeps every write in its own queue
// (writableLength), so a queue of an exact size is real and repeatable.
async function connectingSockets(count) {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sockets = Array.from({ length: count }, () => net.connect(server.address().port, '127.0.0.1'));
  const close = () => {
    for (const socket of sockets) socket.destroy();
    server.close();
  };
  return { sockets, close };
}

test('write queues: under 16 KB never full; one flow may queue 1 MB; flows past the mark share the budget', async () => {
  const { sockets, close } = await connectingSockets(4);
  try {
    const queues = createWriteQueues({ budget: 256 * 1024, most: 128 * 1024 });
    const [a, b, c, d] = sockets;
    a.write(Buffer.alloc(16 * 1024 - 1));
    assert.equal(queues.full(a), false, 'below the 16 KB mark');
    a.write(Buffer.alloc(100 * 1024));
    assert.equal(queues.full(a), false, 'one flow past the mark grows up to `most`');
    a.write(Buffer.alloc(40 * 1024));
    assert.equal(queues.full(a), true, 'at `most`');
    // A second flow past the mark: each may hold budget / 2 = 128 KB, and
    // the two hold 236 KB of 256.
    b.write(Buffer.alloc(80 * 1024));
    assert.equal(queues.full(b), false);
    // The budget is a sum: a third and a fourth flow find it spent.
    c.write(Buffer.alloc(30 * 1024));
    assert.equal(queues.full(c), true, '266 KB held of 256');
    d.write(Buffer.alloc(20 * 1024));
    assert.equal(queues.full(d), true, '286 KB held of 256');
    // A closed socket gives its share back.
    queues.release(a);
    queues.release(c);
    assert.equal(queues.full(d), false, 'two released: 100 KB held of 256, 20 KB of its 128');
  } finally {
    close();
  }
});
