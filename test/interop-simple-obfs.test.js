import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { clientHello } from '../lib/presets/simple-obfs/tls-hello.js';
import { startEchoServer } from './support/echo-server.js';
import { sendHostile } from './support/hostile.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { freePort, startSsServerWithObfs, startSsTunnelWithObfs } from './support/simple-obfs.js';
import { echoTransfer } from './support/transfer.js';

// Wire compatibility with simple-obfs 0.0.5 as shadowsocks-libev runs it,
// in both modes and both directions:
//   ours -> obfs-server -> ss-server -> echo
//   ss-tunnel -> obfs-local -> ours -> echo
//   ours -> ours -> echo
// 2 MB each way; the bytes at the echo target and the bytes back must hash
// as the bytes sent.
const SIZE = 2 * 1024 * 1024;
const KEY = 'simple-obfs-interop';
const METHOD = 'aes-256-gcm';
const HOST = 'www.example.com';

describe('wire compatibility with simple-obfs', () => {
  let echo;
  before(async () => {
    echo = await startEchoServer();
  });
  after(async () => {
    await stopAll();
    await echo?.close();
  });

  for (const obfs of ['http', 'tls']) {
    test(`obfs=${obfs}`, { timeout: 60_000 }, async (t) => {
      if (!requirePrograms(t, 'ss-server', 'ss-tunnel', 'obfs-server', 'obfs-local')) return;
      t.after(stopAll);
      const presets = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: METHOD } }, { name: 'simple-obfs', params: { mode: obfs, host: HOST } }];
      const [obfsServer, ourClient, ourServer, tunnel, pairClient, pairServer] = await Promise.all(Array.from({ length: 6 }, freePort));
      const forwardPort = echo.port;
      await Promise.all([
        // obfs-server is given no obfs-host: then it takes any Host or SNI.
        startSsServerWithObfs({ port: obfsServer, key: KEY, method: METHOD, obfs }),
        startRelayClient({ port: ourClient, serverPort: obfsServer, forwardPort, key: KEY, presets }),
        // A short handshake timeout, for the probe at the end.
        startRelayServer({ port: ourServer, key: KEY, presets, extra: ['--handshake-timeout', '1'] }),
        startSsTunnelWithObfs({ port: tunnel, serverPort: ourServer, forwardPort, key: KEY, method: METHOD, obfs, host: HOST }),
        startRelayServer({ port: pairServer, key: KEY, presets }),
        startRelayClient({ port: pairClient, serverPort: pairServer, forwardPort, key: KEY, presets }),
      ]);
      const paths = { 'ours -> obfs-server': ourClient, 'obfs-local -> ours': tunnel, 'ours -> ours': pairClient };
      const before = echo.received.length;
      const results = await Promise.all(
        Object.entries(paths).map(async ([path, port]) => ({ path, ...(await echoTransfer({ port, size: SIZE })) })),
      );
      for (const { path, sent, returned, bytesBack } of results) {
        assert.equal(bytesBack, SIZE, `${path}: bytes back`);
        assert.equal(returned, sent, `${path}: data came back changed`);
      }
      const farEnd = await Promise.all(echo.received.slice(before).map((record) => record.closed));
      assert.equal(farEnd.length, 3, 'each path made one connection to the echo target');
      assert.deepEqual(farEnd.map((r) => r.sha256).sort(), results.map((r) => r.sent).sort(), 'bytes at the far end equal the bytes sent');

      // A probe for another host (it says too little for the cipher to
      // refuse: only the Host or SNI check can) reaches no target, and is
      // held until the handshake timeout and then reset, as every probe is
      // (docs/security.md): how it ends says nothing of why.
      const probe = obfs === 'http'
        ? Buffer.from('GET / HTTP/1.1\r\nHost: www.example.org\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n')
        : Buffer.concat(clientHello({ host: 'www.example.org', ticket: randomBytes(8), sessionId: randomBytes(32), random: randomBytes(32) }));
      const { how, ms } = await sendHostile({ port: ourServer, bytes: probe });
      assert.equal(how, 'reset');
      assert.ok(ms >= 900, `held ${ms} ms, not the handshake timeout`);
      assert.equal(echo.received.length, before + 3, 'the probe reached no target');
    });
  }
});
