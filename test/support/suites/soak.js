import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEchoServer } from '../echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from '../processes.js';

// Genuine traffic through one relay pair of a chain, the way users' programs
// write it: many fresh connections, each with its own write pattern, echoed
// back and checked byte for byte at both ends. Any reset, short echo or
// changed byte is a failure of the relays, never of the traffic: nothing
// here is hostile. Used by test/relay-soak-*.test.js (the short form in
// `npm test`) and scripts/soak.js (`npm run soak -- --minutes N`).

const KiB = 1024;
const MiB = 1024 * KiB;
// One write of each size a program makes: a byte, a handshake's worth, a
// packet, a TLS record, a socket buffer, a file chunk.
export const WRITE_SIZES = [1, 300, 1400, 16 * KiB, 64 * KiB, MiB];
// Every way of cutting the first bytes of a stream in two.
export const SPLIT_POINTS = 200;
// A server that answers this late (stopped by SIGSTOP, as a loaded machine
// or a long round trip delays it) while the client sends this much: twice
// what a client waiting for the server's handshake may hold (8 MB in
// obfs-tls1.2-ticket), so a client that reads on instead of pausing fails.
const LATE_SERVER_MS = 300;
const LATE_SERVER_BYTES = 16 * MiB;
const CONNECTION_TIMEOUT_MS = 60_000;

// The connections of one round: a connection per write size (that size,
// written `repeat` times), and one per split point of the first
// SPLIT_POINTS bytes (k bytes, then the rest in a later write).
export function roundPlans({ repeat = 1, splits = SPLIT_POINTS } = {}) {
  const plans = WRITE_SIZES.map((size) => ({ name: `${size} B writes`, writes: Array(repeat).fill(size) }));
  for (let k = 1; k <= splits; k++) plans.push({ name: 'split', writes: [k, 512 - k] });
  return plans;
}

// One connection through `port`: writes `writes` (sizes, one at a time, a
// turn of the event loop between them so they leave as separate segments),
// reads the echo back until every byte is in, then ends. Resolves with its
// outcome; never rejects.
export function echoConnection(port, writes, { timeoutMs = CONNECTION_TIMEOUT_MS } = {}) {
  const total = writes.reduce((a, b) => a + b, 0);
  const payload = randomBytes(total);
  const sentHash = createHash('sha256').update(payload).digest('hex');
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true, noDelay: true });
    const back = createHash('sha256');
    let received = 0;
    let error = null;
    const timer = setTimeout(() => {
      error = new Error(`timed out with ${received} of ${total} bytes back`);
      socket.destroy();
    }, timeoutMs);
    socket.on('connect', async () => {
      let offset = 0;
      for (const size of writes) {
        const piece = payload.subarray(offset, offset + size);
        offset += size;
        if (!socket.write(piece)) await new Promise((drained) => socket.once('drain', drained));
        await new Promise(setImmediate);
        if (socket.destroyed) return;
      }
    });
    socket.on('data', (data) => {
      back.update(data);
      received += data.length;
      if (received >= total) socket.end();
    });
    socket.on('error', (cause) => {
      error ??= cause;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const intact = !error && received === total && back.digest('hex') === sentHash;
      resolve({ bytes: total, received, intact, error: error && (error.code ?? error.message) });
    });
  });
}

// Runs `plans` through `port`, `concurrency` connections at a time.
export async function runPlans(port, plans, { concurrency = 16 } = {}) {
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < plans.length) {
      const plan = plans[next++];
      results.push({ plan: plan.name, ...(await echoConnection(port, plan.writes)) });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

// One connection that starts while the relay server is stopped, so its
// handshake answer comes LATE_SERVER_MS late while the client keeps writing.
export async function lateServerConnection(port, server) {
  process.kill(server.pid, 'SIGSTOP');
  const resumed = sleep(LATE_SERVER_MS).then(() => process.kill(server.pid, 'SIGCONT'));
  const result = await echoConnection(port, Array(LATE_SERVER_BYTES / (256 * KiB)).fill(256 * KiB));
  await resumed;
  return { plan: `server ${LATE_SERVER_MS} ms late`, ...result };
}

// A busy loop in its own process, so the relays share the cores with load
// the suite makes itself; stop() ends it. It also ends itself within 50 ms
// of losing its parent (its parent pid changes): a test process killed
// from outside, which runs no 'exit' handler, must not leave it spinning.
const BURN =
  'const parent = process.ppid; for (;;) { const until = Date.now() + 50; while (Date.now() < until); if (process.ppid !== parent) process.exit(); }';

export function startCpuBurner() {
  const child = spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // Whatever ends this process ends the loop too.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    // 'exit' is awaited from the start: a loop that already ended (killed
    // by a signal, so its exitCode stays null) must not be waited for again.
    stop() {
      process.off('exit', killOnExit);
      child.kill('SIGKILL');
      return exited;
    },
  };
}

// A relay pair of `chain` with an echo target, its relays logging at debug
// level (why each connection closed) for the failure message.
export async function startSoakPair({ presets, password }) {
  const echo = await startEchoServer();
  let server;
  let client;
  try {
    server = await startRelayServer({ key: password, presets, extra: ['--log-level', 'debug'] });
    client = await startRelayClient({
      serverPort: server.port,
      forwardPort: echo.port,
      key: password,
      presets,
      extra: ['--log-level', 'debug'],
    });
  } catch (error) {
    // Half a pair is stopped too: nothing the soak started outlives it.
    await stopAll();
    await echo.close();
    throw error;
  }
  return {
    port: client.port,
    server,
    logs: () => `relay server:\n${server.output.slice(-4000)}\nrelay client:\n${client.output.slice(-4000)}`,
    async stop() {
      await stopAll();
      await echo.close();
    },
  };
}

// What a soak's results add up to, and the ones that failed.
export function tally(results) {
  const failed = results.filter((result) => !result.intact);
  return {
    connections: results.length,
    bytes: results.reduce((sum, result) => sum + result.bytes, 0),
    resets: results.filter((result) => result.error === 'ECONNRESET' || result.error === 'EPIPE').length,
    failed,
  };
}

// The short soak of `npm test`, one test per chain: a round of plans and a
// late server, while a busy loop the suite starts shares the cores.
export function soakSuite(chains, { describe, test, before, after, assert }) {
  let burner;
  before(() => {
    burner = startCpuBurner();
  });
  after(() => burner.stop(), { timeout: 10_000 });
  for (const { label, presets, password = 'soak-test-password' } of chains) {
    describe(`genuine connections through a relay pair under load (${label})`, () => {
      // Started and stopped by hooks, which run even when the test times
      // out: a pair left running would keep this file from ever exiting.
      let pair;
      before(async () => {
        pair = await startSoakPair({ presets, password });
      });
      after(() => pair?.stop(), { timeout: 30_000 });

      test('no connection is reset, none loses or changes a byte', { timeout: 180_000 }, async (t) => {
        const results = await runPlans(pair.port, roundPlans());
        results.push(await lateServerConnection(pair.port, pair.server));
        const { connections, bytes, resets, failed } = tally(results);
        t.diagnostic(
          `${label}: ${connections} connections, ${(bytes / 2 ** 20).toFixed(1)} MB each way, ${resets} resets, ${failed.length} failed`,
        );
        const why = failed
          .slice(0, 5)
          .map(
            (result) =>
              `${result.plan}: ${result.error ?? 'changed bytes'} (${result.received} of ${result.bytes} back)`,
          )
          .join('; ');
        assert.equal(
          failed.length,
          0,
          `${failed.length} of ${connections} connections failed (${why})\n${pair.logs()}`,
        );
      });
    });
  }
}
