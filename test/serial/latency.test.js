import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { startEchoTarget } from '../../lib/traffic/echo-target.js';
import { measureLatency } from '../../lib/traffic/latency.js';
import { freePort } from '../support/ports.js';
import { CLI, startProcess, startRelayClient, startRelayServer, stopAll } from '../support/processes.js';

// In test/serial/, which npm test runs alone after the files that run side
// by side: the relayed medians are compared with the direct ones measured
// just before, which the suite's own load, varying beside them, would blur.
// Every target, relay and CLI echo listens on a port the OS picks (port 0)
// and the test reads it back.
const AES_GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const FIGURES = ['count', 'unit', 'mean', 'p50', 'p90', 'p99', 'p999', 'max'];

after(stopAll);

// A TCP server of the test's making, closed with everything it accepted.
async function startServer(onConnection) {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}

// On loopback every figure is above 0, and a round trip or connect takes
// well under 50 ms: a harness that read microseconds as milliseconds, or a
// delay on every exchange (Nagle's 40 ms against a delayed ACK), puts the
// median past that. The tail is bounded by nothing but the scheduler: with
// relays and a CLI echo on 2 cores shared with other work, one stall took a
// p99 to 159 ms (load 13 to 15), so the bound is on the median.
function assertSane(figures, count) {
  assert.deepEqual(Object.keys(figures), FIGURES);
  assert.equal(figures.count, count);
  assert.equal(figures.unit, 'ms');
  const { mean, p50, p90, p99, p999, max } = figures;
  assert.ok(p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= max, JSON.stringify(figures));
  assert.ok(mean <= max && mean > 0, JSON.stringify(figures));
  assert.ok(p50 > 0 && p50 < 50, `loopback p50 below 50 ms: ${JSON.stringify(figures)}`);
}

describe('latency harness against a direct echo target', () => {
  test('2,000 round trips and 200 connections give sane, ordered figures', async () => {
    const echo = await startEchoTarget();
    try {
      const latency = await measureLatency({ port: echo.address.port });
      assert.deepEqual(Object.keys(latency), ['rtt', 'connect']);
      assertSane(latency.rtt, 2000);
      assertSane(latency.connect, 200);
    } finally {
      await echo.close();
    }
  });

  test('an echo with one byte changed fails, naming the round trip and the byte', async () => {
    // The warm-up is bytes 0..1023, round trip k is k*1024..k*1024+1023.
    const flipAt = 10 * 1024 + 7;
    const target = await startServer((socket) => {
      let seen = 0;
      socket.on('data', (data) => {
        const copy = Buffer.from(data);
        if (flipAt >= seen && flipAt < seen + copy.length) copy[flipAt - seen] ^= 0x01;
        seen += copy.length;
        socket.write(copy);
      });
    });
    try {
      await assert.rejects(measureLatency({ port: target.port }), {
        message: /the echo of round trip 10 of 2000 differs from the request at byte 7 of 1024/,
        exitCode: 1,
      });
    } finally {
      await target.close();
    }
  });

  test('an echo that returns more than was sent fails', async () => {
    const target = await startServer((socket) =>
      socket.on('data', (data) => socket.write(Buffer.concat([data, Buffer.from('!')]))),
    );
    try {
      await assert.rejects(measureLatency({ port: target.port, roundTrips: 5, connections: 1 }), {
        message: /echoed more bytes than were sent|nobody asked for/,
      });
    } finally {
      await target.close();
    }
  });

  test('a target that accepts but never answers rejects within timeoutMs, saying what timed out', async () => {
    const target = await startServer(() => {});
    try {
      const started = Date.now();
      await assert.rejects(measureLatency({ port: target.port, timeoutMs: 500 }), {
        message: new RegExp(
          `127\\.0\\.0\\.1:${target.port} did not answer within 500 ms \\(timed out during the warm-up round trip\\)`,
        ),
      });
      const took = Date.now() - started;
      assert.ok(took >= 450 && took < 1500, `rejected after ${took} ms`);
    } finally {
      await target.close();
    }
  });

  test('an aborted signal stops the measurement with its reason', async () => {
    const target = await startServer(() => {});
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('run interrupted')), 100);
      await assert.rejects(measureLatency({ port: target.port, signal: controller.signal }), {
        message: 'run interrupted',
      });
    } finally {
      await target.close();
    }
  });

  test('nothing listening is a one-line measurement error', async () => {
    const target = await startServer(() => {});
    const { port } = target;
    await target.close();
    await assert.rejects(measureLatency({ port }), {
      message: new RegExp(`latency: 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`),
      exitCode: 1,
    });
  });
});

describe('latency harness through a real relay pair', () => {
  after(stopAll);

  test('the relays add latency: rtt and connect p50 above the direct ones', { timeout: 60_000 }, async () => {
    const echo = await startEchoTarget();
    try {
      const server = await startRelayServer({ key: 'latency', presets: AES_GCM });
      const client = await startRelayClient({
        serverPort: server.port,
        forwardPort: echo.address.port,
        key: 'latency',
        presets: AES_GCM,
      });
      const direct = await measureLatency({ port: echo.address.port });
      const relayed = await measureLatency({ port: client.port });
      assertSane(relayed.rtt, 2000);
      assertSane(relayed.connect, 200);
      assert.ok(relayed.rtt.p50 > direct.rtt.p50, `rtt p50 relayed ${relayed.rtt.p50} ms, direct ${direct.rtt.p50} ms`);
      assert.ok(
        relayed.connect.p50 > direct.connect.p50,
        `connect p50 relayed ${relayed.connect.p50} ms, direct ${direct.connect.p50} ms`,
      );
    } finally {
      await stopAll();
      await echo.close();
    }
  });
});

describe('echo and latency commands', () => {
  after(stopAll);
  const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  // `cipherbench echo` on a port the OS picks, read back from its ready line.
  const startCliEcho = async () => {
    const echo = await startProcess(process.execPath, [CLI, 'echo', '--listen', '127.0.0.1:0'], {
      ready: /listening on /,
    });
    const [, port] = /^listening on 127\.0\.0\.1:(\d+)\n/.exec(echo.output) ?? [];
    assert.ok(port, echo.output);
    echo.port = Number(port);
    return echo;
  };

  test('latency --json against `cipherbench echo` prints both rows', async () => {
    const echo = await startCliEcho();
    const result = cli(
      'latency',
      '--connect',
      `127.0.0.1:${echo.port}`,
      '--round-trips',
      '50',
      '--connections',
      '5',
      '--json',
    );
    assert.equal(result.status, 0, result.stderr);
    const latency = JSON.parse(result.stdout);
    assertSane(latency.rtt, 50);
    assertSane(latency.connect, 5);

    const table = cli(
      'latency',
      '--connect',
      `127.0.0.1:${echo.port}`,
      '--round-trips',
      '20',
      '--connections',
      '2',
      '--size',
      '64',
    );
    assert.equal(table.status, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0], /^latency \(ms\)\s+count\s+mean\s+p50\s+p90\s+p99\s+p99\.9\s+max$/);
    assert.match(lines[1], /^rtt\s+20(\s+\d+\.\d{3}){6}$/);
    assert.match(lines[2], /^connect\s+2(\s+\d+\.\d{3}){6}$/);

    echo.kill('SIGTERM');
    assert.deepEqual(await echo.exited, { code: 0, signal: null });
  });

  const usage = [
    ['no --connect', ['latency'], /--connect/],
    ['a bad endpoint', ['latency', '--connect', 'localhost:99999'], /--connect must be HOST:PORT/],
    [
      'zero round trips',
      ['latency', '--connect', '27089', '--round-trips', '0'],
      /--round-trips must be a whole number from 1 to 1000000, got "0"/,
    ],
    ['a fractional size', ['latency', '--connect', '27089', '--size', '1.5'], /--size must be a whole number/],
    ['echo without --listen', ['echo'], /--listen/],
  ];
  for (const [what, args, stderr] of usage) {
    test(`${what}: exit 2, one line`, () => {
      const result = cli(...args);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, stderr);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    });
  }

  test('nothing listening: exit 1, one line', async () => {
    const port = await freePort();
    const result = cli('latency', '--connect', `127.0.0.1:${port}`, '--round-trips', '5', '--connections', '1');
    assert.equal(result.status, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(`^cipherbench: latency: 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\n$`),
    );
  });

  test('a port in use is named, exit 2', async () => {
    const echo = await startCliEcho();
    const result = cli('echo', '--listen', `127.0.0.1:${echo.port}`);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /cannot listen: .*EADDRINUSE/);
    echo.kill('SIGINT');
    assert.deepEqual(await echo.exited, { code: 0, signal: null });
  });
});
