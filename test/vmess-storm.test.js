import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { prepareChain } from '../lib/presets/index.js';
import * as aeadHeader from '../lib/presets/vmess/aead-header.js';
import { alterIds, cmdKey, uuidBytes } from '../lib/presets/vmess/id.js';
import * as legacyHeader from '../lib/presets/vmess/legacy-header.js';
import { startEchoServer } from './support/echo-server.js';
import { sendHostile } from './support/hostile.js';
import { PRESET_CHAINS } from './support/preset-chains.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { steadyStream } from './support/steady-stream.js';
import { echoTransfer } from './support/transfer.js';

// The reliability suite's storm (test/support/suites/storm.js) against
// v2ray-vmess: 3,000 hostile connections, each wrong in one VMess way,
// against one relay server per representative chain while a valid stream
// flows through it. Afterwards the server must be up, silent, back to its
// descriptor count, within 50 MB of its RSS, and carry 8 MB intact.
const KEY = 'unused-by-vmess';
const CONNECTIONS = 3_000;
const CONCURRENCY = 100;
const STALLS = 300;
const HANDSHAKE_TIMEOUT_S = 2;
const nowSeconds = () => Math.floor(Date.now() / 1000);

const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;
const rssBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;


const clientBytes = (presets, target, payload = randomBytes(2048)) => {
  const out = [];
  prepareChain(presets, { password: KEY })('client', { target }).encoder((data) => out.push(data))(payload);
  return Buffer.concat(out);
};

function hostileKinds(presets, target) {
  const { id, alterId = 0 } = presets[0].params;
  const key = cmdKey(uuidBytes(id));
  const authId = (seconds = nowSeconds()) => aeadHeader.createAuthId(aeadHeader.authIdKey(key), seconds);
  const good = () => clientBytes(presets, target);
  const replayed = good();
  const otherUser = [{ name: 'v2ray-vmess', params: { ...presets[0].params, id: '00000000-0000-4000-8000-000000000000' } }];
  const legacyId = alterId > 0 ? alterIds(uuidBytes(id), 1)[0] : uuidBytes(id);
  return {
    'random bytes': () => ({ bytes: randomBytes(1 + Math.floor(Math.random() * 4096)), end: true }),
    'fresh auth ID, then garbage': () => ({ bytes: Buffer.concat([authId(), randomBytes(512)]), end: true }),
    'auth ID 300 s old': () => ({ bytes: Buffer.concat([authId(nowSeconds() - 300), randomBytes(512)]), end: true }),
    'header length over the limit': () => ({ bytes: aeadHeader.sealRequestHeader(key, authId(), Buffer.alloc(4000)).subarray(0, aeadHeader.PREFIX_LENGTH), end: true }),
    'legacy hash of now, then garbage': () => ({ bytes: Buffer.concat([legacyHeader.authHash(legacyId, nowSeconds()), randomBytes(512)]), end: true }),
    'a replayed request': () => ({ bytes: replayed, end: true }),
    'another user': () => ({ bytes: clientBytes(otherUser, target), end: true }),
    'closed half-way': () => {
      const bytes = good();
      return { bytes: bytes.subarray(0, bytes.length >> 1), cutAfterMs: 5 };
    },
    'one flipped bit in the body': () => {
      const bytes = good();
      bytes[bytes.length - 1 - Math.floor(Math.random() * 1024)] ^= 1 << Math.floor(Math.random() * 8);
      return { bytes, end: true };
    },
  };
}

for (const { label, presets } of PRESET_CHAINS.filter((entry) => entry.presets[0].name === 'v2ray-vmess')) {
  describe(`relay server under a storm of ${CONNECTIONS} hostile connections (${label})`, () => {
    let echo;
    let server;
    let ports;
    before(async () => {
      echo = await startEchoServer();
      server = await startRelayServer({ key: KEY, presets, extra: ['--handshake-timeout', String(HANDSHAKE_TIMEOUT_S)] });
      const client = await startRelayClient({ serverPort: server.port, forwardPort: echo.port, key: KEY, presets });
      ports = { server: server.port, client: client.port };
    });
    after(async () => {
      await stopAll();
      await echo?.close();
    });

    test('the server stays up, loses nothing and frees everything', { timeout: 120_000 }, async (t) => {
      const warm = await echoTransfer({ port: ports.client, size: 64 * 1024 * 1024, timeoutMs: 60_000 });
      assert.equal(warm.returned, warm.sent);
      await sleep(200);
      const fdsBefore = fdCount(server.pid);
      const rssBefore = rssBytes(server.pid);
      const steady = steadyStream(ports.client);
      await sleep(300);

      const kinds = hostileKinds(presets, { host: '127.0.0.1', port: echo.port });
      const names = Object.keys(kinds);
      const tally = Object.fromEntries([...names, 'one byte, then a stall'].map((name) => [name, 0]));
      const started = Date.now();
      const stalls = Array.from({ length: STALLS }, async () => {
        const { ms } = await sendHostile({ port: ports.server, bytes: Buffer.from([1]), timeoutMs: 5000 });
        tally['one byte, then a stall'] += 1;
        assert.ok(ms >= HANDSHAKE_TIMEOUT_S * 1000 - 100, `a stall was cut after ${ms} ms, before the handshake timeout`);
      });
      let next = 0;
      const worker = async () => {
        while (next < CONNECTIONS - STALLS) {
          const name = names[next++ % names.length];
          await sendHostile({ port: ports.server, ...kinds[name]() });
          tally[name] += 1;
        }
      };
      await Promise.all([...stalls, ...Array.from({ length: CONCURRENCY }, worker)]);
      const stormSeconds = (Date.now() - started) / 1000;

      const stream = await steady.finish();
      let fdsAfter = fdCount(server.pid);
      for (let waited = 0; fdsAfter !== fdsBefore && waited < 5000; waited += 100) {
        await sleep(100);
        fdsAfter = fdCount(server.pid);
      }
      const rssAfter = rssBytes(server.pid);
      const fresh = await echoTransfer({ port: ports.client, size: 8 * 1024 * 1024 });

      const tried = Object.values(tally).reduce((a, b) => a + b, 0);
      t.diagnostic(`${label}: ${tried} hostile connections in ${stormSeconds.toFixed(1)} s: ${JSON.stringify(tally)}`);
      t.diagnostic(`fds ${fdsBefore} -> ${fdsAfter}; RSS ${(rssBefore / 2 ** 20).toFixed(1)} -> ${(rssAfter / 2 ** 20).toFixed(1)} MB`);

      assert.equal(tried, CONNECTIONS);
      assert.equal(server.exitCode, null, 'relay server still running');
      assert.doesNotMatch(server.output, /\n\s+at |Uncaught|Error/, 'nothing but the listening line was printed');
      assert.equal(fdsAfter, fdsBefore, 'file descriptors back to their count before the storm');
      assert.ok(rssAfter - rssBefore < 50 * 2 ** 20, `RSS grew by ${((rssAfter - rssBefore) / 2 ** 20).toFixed(1)} MB`);
      assert.equal(stream.backBytes, stream.sentBytes, 'the steady stream got all its bytes back');
      assert.equal(stream.back, stream.sent, 'the steady stream is intact');
      assert.equal(fresh.returned, fresh.sent, '8 MB through the pair after the storm');
    });
  });
}
