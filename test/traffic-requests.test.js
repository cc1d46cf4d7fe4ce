import assert from 'node:assert/strict';
import net from 'node:net';
import { before, describe, test } from 'node:test';
import { measureRequests } from '../lib/traffic/request-load.js';
import { freePort } from './support/ports.js';
import { httpTargets } from './support/http-targets.js';
import { startRelayClient, startRelayServer } from './support/processes.js';

// The request workload's client against targets that misbehave in known
// ways, with every request accounted for: what the target counted is what
// the client counted, answered or failed by kind. No assertion on speed;
// only lower bounds that a slow machine cannot break (a request held back
// 50 ms takes at least 50 ms).
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const { target, closers } = httpTargets();

const noErrors = { refused: 0, reset: 0, timeout: 0, badResponse: 0 };

describe('request workload: errors counted by kind', () => {
  test('a slow target: every answer takes at least its delay, none fails', async () => {
    const slow = await target({ delayMs: 50 });
    const figures = await measureRequests({
      port: slow.address.port,
      target: slow.address,
      concurrency: 4,
      durationSeconds: 1,
    });
    assert.deepEqual(figures.errors, noErrors);
    assert.ok(figures.ok >= 4, `${figures.ok} answered`);
    assert.ok(figures.latency.p50 >= 50 && figures.latency.max >= 50, JSON.stringify(figures.latency));
    assert.equal(slow.requests(), figures.ok, 'every request the target saw was answered and counted');
    assert.equal(figures.latency.count, figures.ok);
  });

  test('a target slower than the request timeout: each request a timeout, none ok', async () => {
    const stuck = await target({ delayMs: 3000 });
    const figures = await measureRequests({
      port: stuck.address.port,
      target: stuck.address,
      concurrency: 3,
      durationSeconds: 1,
      requestTimeoutMs: 300,
    });
    assert.equal(figures.ok, 0);
    assert.equal(figures.latency, null);
    assert.ok(figures.errors.timeout >= 3, JSON.stringify(figures.errors));
    assert.deepEqual({ ...figures.errors, timeout: 0 }, noErrors);
  });

  test('a target that resets every 5th request: those are resets, the rest ok, nothing lost', async () => {
    const resetting = await target({ resetEvery: 5 });
    const figures = await measureRequests({
      port: resetting.address.port,
      target: resetting.address,
      concurrency: 5,
      durationSeconds: 1,
    });
    assert.ok(figures.errors.reset >= 1, JSON.stringify(figures));
    assert.equal(figures.errors.reset, Math.floor(resetting.requests() / 5));
    assert.equal(figures.ok + figures.errors.reset, resetting.requests());
    assert.deepEqual({ ...figures.errors, reset: 0 }, noErrors);
  });

  test('nothing listening: every try refused', async () => {
    const port = await freePort();
    const figures = await measureRequests({
      port,
      target: { host: '127.0.0.1', port },
      concurrency: 2,
      durationSeconds: 0.5,
    });
    assert.equal(figures.ok, 0);
    assert.ok(figures.errors.refused >= 2);
    assert.deepEqual({ ...figures.errors, refused: 0 }, noErrors);
  });

  test('a target that answers something other than HTTP: bad responses', async () => {
    const server = net.createServer((socket) =>
      socket.on('data', () => socket.write('SSH-2.0-OpenSSH\r\n\r\n')).on('error', () => {}),
    );
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address();
    const figures = await measureRequests({
      port,
      target: { host: '127.0.0.1', port },
      concurrency: 2,
      durationSeconds: 0.5,
    });
    assert.equal(figures.ok, 0);
    assert.ok(figures.errors.badResponse >= 2);
  });

  test('a warm-up: its requests reach the target but are not counted', async () => {
    const fast = await target({});
    let measuringFrom = null;
    const figures = await measureRequests({
      port: fast.address.port,
      target: fast.address,
      concurrency: 2,
      durationSeconds: 0.5,
      warmupSeconds: 0.5,
      onMeasuring: () => {
        measuringFrom = performance.now();
      },
    });
    assert.ok(measuringFrom !== null, 'onMeasuring was called');
    assert.ok(figures.ok > 0);
    assert.ok(fast.requests() > figures.ok, `${fast.requests()} reached the target, ${figures.ok} counted`);
    assert.equal(figures.connections, 0, 'kept-alive connections were opened during the warm-up');
  });

  test('--new-connections: one connection a request, and the target asked to close each', async () => {
    const fast = await target({ responseSize: 1000 });
    const figures = await measureRequests({
      port: fast.address.port,
      target: fast.address,
      concurrency: 2,
      durationSeconds: 0.5,
      newConnections: true,
    });
    assert.deepEqual(figures.errors, noErrors);
    assert.ok(figures.ok > 0);
    assert.equal(figures.connections, figures.ok);
  });

  test('responses larger than one read, and one answer with a body longer than its head says: every byte counted', async () => {
    const large = await target({ responseSize: 100_000 });
    const figures = await measureRequests({
      port: large.address.port,
      target: large.address,
      concurrency: 2,
      durationSeconds: 0.5,
    });
    assert.deepEqual(figures.errors, noErrors);
    assert.ok(figures.ok > 0);
    assert.equal(large.requests(), figures.ok);
    // The usual head, seen first, then the same head with two bytes too many.
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n';
    let answered = 0;
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.on('data', () => socket.write(answered++ < 3 ? `${head}xx` : `${head}xxyy`));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address();
    const overlong = await measureRequests({
      port,
      target: { host: '127.0.0.1', port },
      concurrency: 1,
      durationSeconds: 0.3,
    });
    assert.equal(overlong.ok, 3);
    assert.ok(overlong.errors.badResponse > 0, JSON.stringify(overlong.errors));
  });
});

// The relays as the runner starts them, each a process of its own: one
// server for the describe, a client of each inbound per test.
describe('request workload: every kind through our relay pair', () => {
  let relayServer;
  before(async () => {
    relayServer = await startRelayServer({ key: 'k', presets: AES });
  });
  for (const [kind, inbound] of [
    ['tunnel', 'tunnel'],
    ['socks5', 'socks5'],
    ['http-connect', 'http'],
    ['http-proxy', 'http'],
  ]) {
    for (const newConnections of [false, true]) {
      test(`${kind}${newConnections ? ', a new connection a request' : ''}`, async () => {
        const http = await target({ responseSize: 3000 });
        const client = await startRelayClient({
          serverPort: relayServer.port,
          forwardPort: http.address.port,
          key: 'k',
          presets: AES,
          inbound,
        });
        const figures = await measureRequests({
          port: client.port,
          kind,
          target: http.address,
          concurrency: 4,
          durationSeconds: 0.5,
          newConnections,
        });
        assert.deepEqual(figures.errors, noErrors);
        assert.ok(figures.ok > 0);
        assert.equal(http.requests(), figures.ok);
        assert.equal(figures.connections, newConnections ? figures.ok : 4);
      });
    }
  }
});
