import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { findWrk, measureWithWrk, parseWrkReport, wrkArgs } from '../lib/traffic/wrk.js';
import { bindServer } from '../lib/relay/listener.js';
import { requirePrograms } from './support/programs.js';
import { httpTargets } from './support/http-targets.js';
import { startRelayClient, startRelayServer } from './support/processes.js';

// wrk as the request workload's engine, for real: its script's report
// parsed into the built-in client's figures, every request it counted
// seen by the target, errors by kind, and the two inbounds it speaks
// through our relay pair.
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const noErrors = { refused: 0, reset: 0, timeout: 0, badResponse: 0 };
const { target, closers } = httpTargets();

// A plain TCP server that answers each connection's first bytes with
// `answer`, then closes, counting connections.
async function answering(answer) {
  const counted = { connections: 0 };
  const server = net.createServer((socket) => {
    counted.connections += 1;
    socket.on('error', () => {});
    socket.once('data', () => socket.end(answer));
  });
  const address = await bindServer(server, { host: '127.0.0.1', port: 0 });
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { address, counted };
}

const wrk = (options) =>
  measureWithWrk({ wrkPath: 'wrk', host: '127.0.0.1', concurrency: 4, durationSeconds: 1, ...options });

describe("wrk report: the script's line as the workload's figures", () => {
  const line =
    'cipherbench-wrk {"durationMicroseconds":2000000,"requests":1010,"bytes":1,' +
    '"errors":{"connect":3,"read":4,"write":1,"status":10,"timeout":2},"cpuTicks":{"user":7,"system":13},' +
    '"latencyMicroseconds":{"min":14,"mean":464.775,"stdev":958.169,"p50":229,"p90":612,"p99":4617,"p999":10192,"max":11459}}';

  test("counts, errors by kind, latency in ms, the generator's CPU", () => {
    const figures = parseWrkReport(`Running 2s test\n${line}\n`, {
      kind: 'tunnel',
      concurrency: 20,
      newConnections: false,
      warmupSeconds: 1,
      ticksPerSecond: 100,
    });
    assert.deepEqual(figures, {
      kind: 'tunnel',
      concurrency: 20,
      newConnections: false,
      seconds: 2,
      warmupSeconds: 1,
      ok: 1000,
      errors: { refused: 3, reset: 5, timeout: 2, badResponse: 10 },
      connections: null,
      requestsPerSecond: 500,
      latency: {
        unit: 'ms',
        count: 1000,
        mean: 464.775 / 1000,
        stdev: 958.169 / 1000,
        p50: 229 / 1000,
        p90: 612 / 1000,
        p99: 4617 / 1000,
        p999: 10192 / 1000,
        max: 11459 / 1000,
      },
      generatorCpuSeconds: 0.2,
    });
  });

  test('no line, no figures', () => {
    assert.equal(
      parseWrkReport('unable to connect to 127.0.0.1:9 Connection refused\n', { ticksPerSecond: 100 }),
      null,
    );
  });

  test('the plain-proxy kind sends absolute URIs to the entry; wrk cannot speak SOCKS5', () => {
    const args = wrkArgs({
      port: 1081,
      kind: 'http-proxy',
      target: { host: '127.0.0.1', port: 1083 },
      concurrency: 20,
      seconds: 3,
      newConnections: true,
    });
    assert.deepEqual(args.slice(0, 8), ['-t', '1', '-c', '20', '-d', '3s', '--timeout', '10s']);
    assert.deepEqual(args.slice(-4), ['http://127.0.0.1:1081/', '--', '127.0.0.1:1083', 'close']);
    assert.throws(
      () => wrkArgs({ port: 1081, kind: 'socks5', concurrency: 1, seconds: 1 }),
      /cannot speak the socks5 inbound/,
    );
  });
});

describe('wrk against real targets', () => {
  test('every request wrk counted reached the target; those in flight at its end are the only difference', async (t) => {
    if (!requirePrograms(t, 'wrk')) return;
    const http = await target({ responseSize: 3000 });
    let measuring = 0;
    const figures = await wrk({
      port: http.address.port,
      kind: 'tunnel',
      target: http.address,
      warmupSeconds: 1,
      onMeasuring: () => {
        measuring = http.requests();
      },
    });
    assert.deepEqual(figures.errors, noErrors);
    assert.ok(measuring > 0, 'the warm-up ran first and reached the target');
    const counted = http.requests() - measuring;
    assert.ok(
      figures.ok > 0 && figures.ok <= counted && counted <= figures.ok + 4,
      `wrk ${figures.ok}, target ${counted}`,
    );
    assert.ok(
      figures.latency.p50 > 0 &&
        figures.latency.p50 <= figures.latency.p99 &&
        figures.latency.p99 <= figures.latency.max,
    );
    assert.ok(figures.generatorCpuSeconds > 0, 'wrk read its own CPU time');
  });

  test('nothing listening: connection errors are refusals', async (t) => {
    if (!requirePrograms(t, 'wrk')) return;
    const closed = await answering('');
    const port = closed.address.port;
    closers.pop()();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const figures = await wrk({ port, kind: 'tunnel', target: { host: '127.0.0.1', port }, durationSeconds: 1 });
    if (figures.reason) assert.match(figures.reason, /wrk printed no report/);
    else assert.ok(figures.ok === 0 && figures.errors.refused > 0, JSON.stringify(figures.errors));
  });

  test('a server answering 503: bad responses, none ok', async (t) => {
    if (!requirePrograms(t, 'wrk')) return;
    const server = await answering('HTTP/1.1 503 Busy\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    const figures = await wrk({ port: server.address.port, kind: 'tunnel', target: server.address });
    assert.equal(figures.ok, 0);
    assert.ok(figures.errors.badResponse > 0, JSON.stringify(figures.errors));
  });

  test('a target that resets every 5th request: resets, the rest answered', async (t) => {
    if (!requirePrograms(t, 'wrk')) return;
    const http = await target({ resetEvery: 5 });
    const figures = await wrk({ port: http.address.port, kind: 'tunnel', target: http.address });
    assert.ok(figures.ok > 0 && figures.errors.reset > 0, JSON.stringify(figures));
  });

  test('--new-connections: the target is asked to close each, and each request is a connection of its own', async (t) => {
    if (!requirePrograms(t, 'wrk')) return;
    const http = await target({});
    const counting = net.createServer((socket) => {
      counting.connections = (counting.connections ?? 0) + 1;
      const upstream = net.connect(http.address.port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    const address = await bindServer(counting, { host: '127.0.0.1', port: 0 });
    closers.push(() => new Promise((resolve) => counting.close(resolve)));
    const figures = await wrk({ port: address.port, kind: 'tunnel', target: http.address, newConnections: true });
    assert.deepEqual(figures.errors, noErrors);
    assert.ok(figures.ok > 0);
    assert.ok(
      counting.connections >= figures.ok && counting.connections <= figures.ok + 8,
      `${counting.connections} connections for ${figures.ok} requests`,
    );
  });
});

describe('wrk through our relay pair: the two inbounds it speaks', () => {
  for (const [kind, inbound] of [
    ['tunnel', 'tunnel'],
    ['http-proxy', 'http'],
  ]) {
    for (const newConnections of [false, true]) {
      test(`${kind}${newConnections ? ', a new connection a request' : ''}`, async (t) => {
        if (!requirePrograms(t, 'wrk')) return;
        const relayServer = await startRelayServer({ key: 'k', presets: AES });
        const http = await target({ responseSize: 3000 });
        const client = await startRelayClient({
          serverPort: relayServer.port,
          forwardPort: http.address.port,
          key: 'k',
          presets: AES,
          inbound,
        });
        const figures = await wrk({ port: client.port, kind, target: http.address, newConnections });
        assert.deepEqual(figures.errors, noErrors);
        assert.ok(figures.ok > 0);
        assert.ok(
          http.requests() >= figures.ok && http.requests() <= figures.ok + 4,
          `target ${http.requests()}, wrk ${figures.ok}`,
        );
      });
    }
  }

  test('findWrk: missing wrk is one input error naming the way out', async () => {
    await assert.rejects(
      findWrk({ env: { PATH: '/nonexistent' } }),
      (error) =>
        error.exitCode === 2 &&
        error.message ===
          'wrk is not installed (not found on PATH): install it with `sudo apt-get install wrk` (Debian/Ubuntu) or `brew install wrk` (macOS), or run with --engine node',
    );
  });
});
