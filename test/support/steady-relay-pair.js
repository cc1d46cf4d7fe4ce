import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before } from 'node:test';
import { sendHostile } from '../../benchmark/programs/support/hostile.js';
import { echoTransfer } from '../../benchmark/programs/support/transfer.js';
import { startEchoServer } from './echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './processes.js';

// What the hostile-input tests of a relay server share: the server under
// attack at debug level with a 1 s handshake timeout, our client to it, an
// echo target, and one steady connection opened before any attack, whose
// flow afterwards shows the attacks disturbed no one else.

const HANDSHAKE_TIMEOUT_S = 1;
// Closed at once: well inside the handshake timeout.
const AT_ONCE_MS = 900;

// Up before the describe's first test, stopped after its last; read the
// fields (echo, server, client, steady) inside tests. One byte there and
// back completes the steady connection's handshake at once: a chain whose
// client speaks only with data (base-auth) would otherwise be cut by the
// 1 s handshake timeout.
export function startSteadyRelayPair({ key, presets }) {
  const pair = {};
  before(async () => {
    pair.echo = await startEchoServer();
    pair.server = await startRelayServer({
      key,
      presets,
      extra: ['--log-level', 'debug', '--handshake-timeout', String(HANDSHAKE_TIMEOUT_S)],
    });
    pair.client = await startRelayClient({ serverPort: pair.server.port, forwardPort: pair.echo.port, key, presets });
    pair.steady = net.connect({ port: pair.client.port, host: '127.0.0.1' });
    await new Promise((resolve) => pair.steady.once('connect', resolve));
    pair.steady.write('x');
    await new Promise((resolve) => pair.steady.once('data', resolve));
  });
  after(async () => {
    pair.steady?.destroy();
    await stopAll();
    await pair.echo?.close();
  });
  return pair;
}

// After the attacks: the server still runs and printed no stack, the
// steady connection carries `payload` back whole, and a fresh connection
// carries `freshBytes` both ways.
export async function assertSteadyStillFlows({ server, client, steady }, { payload, freshBytes }) {
  assert.equal(server.exitCode, null, 'relay server still running');
  assert.doesNotMatch(server.output, /\n\s+at |Uncaught|TypeError|RangeError/);
  const back = [];
  let length = 0;
  await new Promise((resolve, reject) => {
    steady.on('data', (data) => {
      back.push(data);
      length += data.length;
      if (length >= payload.length) resolve();
    });
    steady.on('error', reject);
    steady.write(payload);
  });
  assert.deepEqual(Buffer.concat(back), payload);
  const fresh = await echoTransfer({ port: client.port, size: freshBytes });
  assert.equal(fresh.returned, fresh.sent);
}

// Sends `bytes` to the pair's server, and checks how (`how`: one way or a
// list) and when it closed (`atOnce`, or at the handshake timeout), what
// its log said (`reason`) and that no connection reached the target.
export async function assertRefused(pair, bytes, { reason, how = 'reset', atOnce = true, ...options }) {
  const logged = pair.server.output.length;
  const reached = pair.echo.received.length;
  const result = await sendHostile({ port: pair.server.port, bytes, timeoutMs: 5000, ...options });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.match(pair.server.output.slice(logged), reason);
  assert.ok([how].flat().includes(result.how), `closed by ${result.how}`);
  if (atOnce) assert.ok(result.ms < AT_ONCE_MS, `closed after ${result.ms} ms`);
  else assert.ok(result.ms >= HANDSHAKE_TIMEOUT_S * 1000 - 100 && result.ms < 3000, `closed after ${result.ms} ms`);
  assert.equal(pair.echo.received.length, reached, 'nothing reached the target');
  return result;
}
