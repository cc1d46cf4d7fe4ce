import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { encodeAddressHeader } from '../lib/presets/address-header.js';
import { prepareChain } from '../lib/presets/index.js';
import { createLog } from '../lib/relay/log.js';
import { startRelayServer as startRelayServerInProcess } from '../lib/relay/server.js';
import { startEchoServer } from './support/echo-server.js';
import { clientBytes, sendHostile } from './support/hostile.js';
import { PRESET_CHAINS } from './support/preset-chains.js';
import { startRelayServer, stopAll } from './support/processes.js';

// A captured connection sent again, and a server's own answer fed back to it
// as a client stream, reach no target, for every chain of preset-chains.js.
// The echo target counts the connections it got; the server says it refused
// them (a warn line each) and counts them in its closing summary.
const KEY = 'replay-test-password';

// Sends `bytes` as one client connection and returns everything the server
// sent back once its answer decodes to `expected` bytes of plaintext.
function exchange({ port, bytes, presets, expected }) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const wire = [];
    let plain = 0;
    const decode = prepareChain(presets, { password: KEY })('client', {}).decoder((data) => {
      plain += data.length;
    });
    const timer = setTimeout(() => reject(new Error(`no complete answer (${plain} of ${expected} bytes)`)), 5000);
    socket.on('data', (data) => {
      wire.push(data);
      decode(data);
      if (plain >= expected) {
        clearTimeout(timer);
        socket.destroy();
        resolve(Buffer.concat(wire));
      }
    });
    socket.on('error', reject);
    socket.write(bytes);
  });
}

for (const { label, presets } of PRESET_CHAINS) {
  describe(`replayed and reflected connections reach no target (${label})`, () => {
    let echo;
    let server;
    let captured;
    let answer;
    const connections = () => echo.received.length;

    before(async () => {
      echo = await startEchoServer();
      server = await startRelayServer({ key: KEY, presets, extra: ['--handshake-timeout', '1'] });
      // The payload is itself an address header naming the echo target, so
      // that the server's answer, fed back, would name a target as well.
      const target = { host: '127.0.0.1', port: echo.port };
      const payload = Buffer.concat([encodeAddressHeader(target), Buffer.from('reflect me')]);
      captured = clientBytes({ presets, password: KEY, target, payload });
      answer = await exchange({ port: server.port, bytes: captured, presets, expected: payload.length });
      assert.equal(connections(), 1, 'the original connection reached the echo target');
    });
    after(async () => {
      await stopAll();
      await echo?.close();
    });

    test('three replays of a captured connection reach no target', async () => {
      const replays = await Promise.all([1, 2, 3].map(() => sendHostile({ port: server.port, bytes: captured, timeoutMs: 4000 })));
      assert.equal(connections(), 1, 'no replay reached the echo target');
      for (const { how, received, ms } of replays) {
        assert.equal(how, 'reset');
        assert.equal(received.length, 0, 'the server answered nothing');
        assert.ok(ms >= 900, `reset after ${ms} ms, before the handshake timeout`);
      }
    });

    test("the server's own answer, sent back to it, reaches no target", async () => {
      const { how, received } = await sendHostile({ port: server.port, bytes: answer, timeoutMs: 4000 });
      assert.equal(connections(), 1, 'the reflected stream reached no target');
      assert.equal(how, 'reset');
      assert.equal(received.length, 0);
    });

    test('each refusal is a warn line, and the summary counts them', async () => {
      assert.match(server.output, /warn: 127\.0\.0\.1:\d+: refused a replayed or reflected connection \(repeated (salt|IV)[^)]*\); 4 so far/);
      await stopAll();
      assert.match(server.output, /relay server: 5 connections, 1 to a target, 4 refused \(4 replays\)/);
    });
  });
}

test('the server counts replays in its stats()', async () => {
  const presets = PRESET_CHAINS[0].presets;
  const echo = await startEchoServer();
  const relay = await startRelayServerInProcess({ listen: { host: '127.0.0.1', port: 0 }, password: KEY, presets, handshakeTimeoutMs: 200, log: createLog('error') });
  try {
    const bytes = clientBytes({ presets, password: KEY, target: { host: '127.0.0.1', port: echo.port } });
    await sendHostile({ port: relay.address.port, bytes, cutAfterMs: 200 });
    await sendHostile({ port: relay.address.port, bytes, timeoutMs: 2000 });
    assert.deepEqual(relay.stats(), { accepted: 2, relayed: 1, refused: 1, replays: 1, dropped: 0 });
  } finally {
    await relay.close();
    await echo.close();
  }
});
