import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { clientBytes, keyIsTheSecret, sendHostile } from '../benchmark/programs/support/hostile.js';
import { startEchoServer } from './support/echo-server.js';
import { startRelayServer, stopAll } from './support/processes.js';
import { onTheWire, upgradeAnswer } from './support/transport-wire.js';

// The probing suite's rule (test/support/suites/probing.js) through a
// transport: a probe inside a valid upgrade gets the 101 any client of the
// path gets, then nothing, and is held until the handshake timeout and
// reset, whatever its length and whether it was random or made with the
// key and refused; a probe that is no upgrade gets nothing at all, held
// and reset alike. The 101 shows a WebSocket endpoint, as a web server's
// would; nothing after it tells the chain inside, or why it refused.
const KEY = 'probing-transports-password';
const TIMEOUT_MS = 500;
const LENGTHS = [1, 2, 16, 17, 32, 33, 50, 51, 64, 100, 256, 1000, 1500, 2000];
const CHAINS = [
  {
    label: 'ss aes-256-gcm + ws',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }, { name: 'ws' }],
  },
  {
    label: 'vless + httpupgrade',
    presets: [{ name: 'vless', params: { id: 'a3482e88-686a-4a58-8126-99c9df64b7bf' } }, { name: 'httpupgrade' }],
  },
];

for (const { label, presets } of CHAINS) {
  describe(`probes through a transport are held until the handshake timeout, then reset alike (${label})`, () => {
    let echo;
    let server;
    before(async () => {
      echo = await startEchoServer();
      server = await startRelayServer({ key: KEY, presets, extra: ['--handshake-timeout', String(TIMEOUT_MS / 1000)] });
    });
    after(async () => {
      await stopAll();
      await echo?.close();
    });

    test(`random probes of ${LENGTHS.length} lengths and refused requests with the key, with and without an upgrade`, async () => {
      const inside = LENGTHS.map((length) => ({ what: `${length} random bytes`, stream: randomBytes(length) }));
      inside.push({
        what: 'a target beyond loopback',
        stream: clientBytes({ presets, password: KEY, target: { host: '10.9.8.7', port: 443 } }),
      });
      if (keyIsTheSecret(presets, KEY)) {
        inside.push({
          what: 'a request with a wrong key',
          stream: clientBytes({ presets, password: 'not-the-key', target: { host: '127.0.0.1', port: echo.port } }),
        });
      }
      const answer = upgradeAnswer(presets);
      const probes = [
        ...inside.map(({ what, stream }) => ({
          what: `${what}, upgraded`,
          bytes: onTheWire(presets, stream),
          answer,
        })),
        ...LENGTHS.map((length) => ({
          what: `${length} random bytes, no upgrade`,
          bytes: randomBytes(length),
          answer: Buffer.alloc(0),
        })),
      ];
      const results = await Promise.all(
        probes.map(({ bytes }) => sendHostile({ port: server.port, bytes, timeoutMs: TIMEOUT_MS + 3000 })),
      );
      for (const [i, { ms, how, received }] of results.entries()) {
        const line = `${probes[i].what}: ${how} after ${ms} ms, ${received.length} bytes back`;
        assert.equal(how, 'reset', line);
        assert.deepEqual(received, probes[i].answer, line);
        assert.ok(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + 1500, line);
      }
      assert.equal(echo.received.length, 0, 'no probe reached a target');
    });
  });
}
