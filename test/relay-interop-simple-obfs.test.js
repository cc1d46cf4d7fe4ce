import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { clientHello } from '../lib/presets/simple-obfs/tls-hello.js';
import { sendHostile } from '../benchmark/programs/support/hostile.js';
import { assertCarried, sharedEchoTarget, startReferencePaths } from './support/interop.js';
import { stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { startSsServerWithObfs, startSsTunnelWithObfs } from './support/simple-obfs.js';

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
  const echo = sharedEchoTarget();

  for (const obfs of ['http', 'tls']) {
    test(`obfs=${obfs}`, { timeout: 60_000 }, async (t) => {
      if (!requirePrograms(t, 'ss-server', 'ss-tunnel', 'obfs-server', 'obfs-local')) return;
      t.after(stopAll);
      const presets = [
        { name: 'ss-base' },
        { name: 'ss-aead-cipher', params: { method: METHOD } },
        { name: 'simple-obfs', params: { mode: obfs, host: HOST } },
      ];
      const { ourServer, ...paths } = await startReferencePaths(echo, {
        key: KEY,
        presets,
        // A short handshake timeout, for the probe at the end.
        serverExtra: ['--handshake-timeout', '1'],
        // obfs-server is given no obfs-host: then it takes any Host or SNI.
        startTheirServer: (port) => startSsServerWithObfs({ port, key: KEY, method: METHOD, obfs }),
        startTheirClient: ({ port, serverPort, forwardPort }) =>
          startSsTunnelWithObfs({ port, serverPort, forwardPort, key: KEY, method: METHOD, obfs, host: HOST }),
      });
      const before = echo.received.length;
      await assertCarried(
        echo,
        {
          'ours -> obfs-server': paths.ourClient,
          'obfs-local -> ours': paths.theirClient,
          'ours -> ours': paths.pairClient,
        },
        { size: SIZE },
      );

      // A probe for another host (it says too little for the cipher to
      // refuse: only the Host or SNI check can) reaches no target, and is
      // held until the handshake timeout and then reset, as every probe is
      // (docs/security.md): how it ends says nothing of why.
      const probe =
        obfs === 'http'
          ? Buffer.from(
              'GET / HTTP/1.1\r\nHost: www.example.org\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
            )
          : Buffer.concat(
              clientHello({
                host: 'www.example.org',
                ticket: randomBytes(8),
                sessionId: randomBytes(32),
                random: randomBytes(32),
              }),
            );
      const { how, ms } = await sendHostile({ port: ourServer.port, bytes: probe });
      assert.equal(how, 'reset');
      assert.ok(ms >= 900, `held ${ms} ms, not the handshake timeout`);
      assert.equal(echo.received.length, before + 3, 'the probe reached no target');
    });
  }
});
