import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AEAD_2022_METHODS, newPsk } from '../lib/crypto/aead-2022-methods.js';
import { startEchoServer } from './support/echo-server.js';
import { startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { echoTransfer } from './support/transfer.js';

// SIP022 wire compatibility with shadowsocks-rust (1.25), both ways, every
// 2022 method:
//   ours -> ssserver -> echo           (our request and our response decoder)
//   sslocal --protocol tunnel -> ours -> echo   (our request decoder and our response)
//   ours -> ours -> echo
// 2 MB each way per path, checked with SHA-256 at the echo target and on
// return. .ci/run builds shadowsocks-rust; without it this fails under CI.
const SIZE = 2 * 1024 * 1024;
const PORT = 23480;
const RUST_READY = /listening on /;

const startSsRustServer = ({ port, key, method }) =>
  startProcess('ssserver', ['-s', `127.0.0.1:${port}`, '-k', key, '-m', method], { ready: RUST_READY });

const startSsRustTunnel = ({ port, serverPort, forwardPort, key, method }) =>
  startProcess('sslocal', [
    '--protocol', 'tunnel', '-b', `127.0.0.1:${port}`, '--forward-addr', `127.0.0.1:${forwardPort}`,
    '-s', `127.0.0.1:${serverPort}`, '-k', key, '-m', method,
  ], { ready: RUST_READY });

describe('SIP022 wire compatibility with shadowsocks-rust', () => {
  let echo;
  before(async () => {
    echo = await startEchoServer();
  });
  after(async () => {
    await stopAll();
    await echo?.close();
  });

  for (const method of Object.keys(AEAD_2022_METHODS)) {
    test(method, { timeout: 120_000 }, async (t) => {
      if (!requirePrograms(t, 'ssserver', 'sslocal')) return;
      t.after(stopAll);
      const key = newPsk(method);
      const presets = [{ name: 'ss-2022', params: { method } }];
      const forwardPort = echo.port;
      await Promise.all([
        startSsRustServer({ port: PORT + 2, key, method }),
        startRelayClient({ port: PORT + 1, serverPort: PORT + 2, forwardPort, key, presets }),
        startRelayServer({ port: PORT + 4, key, presets }),
        startSsRustTunnel({ port: PORT + 3, serverPort: PORT + 4, forwardPort, key, method }),
        startRelayServer({ port: PORT + 6, key, presets }),
        startRelayClient({ port: PORT + 5, serverPort: PORT + 6, forwardPort, key, presets }),
      ]);
      const paths = { 'ours -> ssserver': PORT + 1, 'sslocal -> ours': PORT + 3, 'ours -> ours': PORT + 5 };
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
      const sentHashes = results.map((result) => result.sent).sort();
      assert.deepEqual(farEnd.map((record) => record.sha256).sort(), sentHashes, 'the echo target received what was sent');
      assert.ok(farEnd.every((record) => record.bytes === SIZE));
    });
  }
});
