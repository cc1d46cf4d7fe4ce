import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { prepareChain } from '../lib/chain/pipeline.js';
import { sendHostile } from '../benchmark/programs/support/hostile.js';
import { sharedEchoTarget } from './support/interop.js';
import { withLegacyProvider } from './support/legacy.js';
import { PRESET_CHAINS } from './support/preset-chains.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';
import { CATALOGUE } from '../lib/presets/index.js';

// 2000 hostile connections against a relay server of each SSR chain while
// an 8 MB transfer goes through it: random bytes, a valid handshake then
// garbage, the wrong key, a recorded connection replayed, one flipped
// byte, a connection cut half-way. Each must be closed by the server; the
// server must stay up, print no stack trace, return to its file descriptor
// count, and carry the transfer intact.
const KEY = 'ssr-storm-password';
const CONNECTIONS = 2000;
const CONCURRENCY = 50;
const SSR_CHAINS = PRESET_CHAINS.filter(({ presets }) => presets.some((preset) => preset.name.startsWith('ssr-')));

const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;

function hostileKinds(presets, target) {
  const clientBytes = (password = KEY) => {
    const out = [];
    const encode = prepareChain(CATALOGUE, presets, { password })('client', { target }).encoder((data) =>
      out.push(data),
    );
    encode(Buffer.alloc(0));
    encode(randomBytes(3000));
    return Buffer.concat(out);
  };
  const recorded = clientBytes();
  return {
    'random bytes': () => ({ bytes: randomBytes(1 + Math.floor(Math.random() * 4096)), end: true }),
    'valid handshake, then garbage': () => ({
      bytes: Buffer.concat([clientBytes().subarray(0, 60), randomBytes(4000)]),
      end: true,
    }),
    'wrong key': () => ({ bytes: clientBytes('wrong'), end: true }),
    'a recorded connection replayed': () => ({ bytes: recorded, end: true }),
    'one flipped byte': () => {
      const bytes = clientBytes();
      bytes[Math.floor(Math.random() * bytes.length)] ^= 0x10;
      return { bytes, end: true };
    },
    'cut half-way': () => {
      const bytes = clientBytes();
      return { bytes: bytes.subarray(0, bytes.length >> 1), cutAfterMs: 5 };
    },
  };
}

// The hostile streams are made here with the presets, and auth_chain's
// need RC4 from OpenSSL 3's legacy provider.
if (withLegacyProvider(import.meta.url))
  describe('SSR relay servers under a storm of hostile connections', () => {
    const echo = sharedEchoTarget();

    SSR_CHAINS.forEach(({ label, presets }) => {
      test(`${label}: a recorded connection replayed never reaches the target`, { timeout: 30_000 }, async (t) => {
        t.after(stopAll);
        const { port } = await startRelayServer({ key: KEY, presets });
        const out = [];
        const encode = prepareChain(CATALOGUE, presets, { password: KEY })('client', {
          target: { host: '127.0.0.1', port: echo.port },
        }).encoder((data) => out.push(data));
        encode(Buffer.alloc(0));
        encode(Buffer.from('once only'));
        const recorded = Buffer.concat(out);
        const before = echo.received.length;
        await sendHostile({ port, bytes: recorded, end: true });
        await sendHostile({ port, bytes: recorded, end: true });
        await sendHostile({ port, bytes: recorded, end: true });
        await sleep(200);
        assert.equal(
          echo.received.length - before,
          1,
          'only the first of three identical connections reached the target',
        );
      });

      test(label, { timeout: 120_000 }, async (t) => {
        t.after(stopAll);
        const server = await startRelayServer({ key: KEY, presets });
        const { port } = server;
        const client = await startRelayClient({ serverPort: port, forwardPort: echo.port, key: KEY, presets });
        const warm = await echoTransfer({ port: client.port, size: 1024 * 1024 });
        assert.equal(warm.returned, warm.sent);
        await sleep(100);
        const fdsBefore = fdCount(server.pid);

        const kinds = hostileKinds(presets, { host: '127.0.0.1', port: echo.port });
        const names = Object.keys(kinds);
        let next = 0;
        const worker = async () => {
          while (next < CONNECTIONS) {
            const name = names[next++ % names.length];
            await sendHostile({ port, ...kinds[name]() }).catch((error) => assert.fail(`${name}: ${error.message}`));
          }
        };
        const transfer = echoTransfer({ port: client.port, size: 8 * 1024 * 1024, timeoutMs: 60_000 });
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
        const carried = await transfer;
        assert.equal(carried.returned, carried.sent, 'the transfer during the storm came back changed');

        let fdsAfter = fdCount(server.pid);
        for (let waited = 0; fdsAfter !== fdsBefore && waited < 5000; waited += 100) {
          await sleep(100);
          fdsAfter = fdCount(server.pid);
        }
        assert.equal(fdsAfter, fdsBefore, 'file descriptors back to their count before the storm');
        assert.equal(server.exitCode, null, 'the server is still running');
        assert.doesNotMatch(server.output, /\n\s+at /, "no stack trace in the server's output");
        const afterwards = await echoTransfer({ port: client.port, size: 2 * 1024 * 1024 });
        assert.equal(afterwards.returned, afterwards.sent);
      });
    });
  });
