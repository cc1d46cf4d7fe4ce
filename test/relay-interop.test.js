import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import shadowsocksLibev from '../lib/peers/shadowsocks-libev.js';
import { startEchoServer } from './support/echo-server.js';
import {
  startRelayClient, startRelayServer, startSsServer, startSsTunnel, stopAll,
} from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { echoTransfer } from './support/transfer.js';

// Wire compatibility, proven against shadowsocks-libev in both directions:
//   ours -> ss-server -> echo      (our client encodes what libev decodes, and back)
//   ss-tunnel -> ours -> echo      (our server decodes what libev encodes, and back)
//   ours -> ours -> echo
// Each path carries random bytes to an echo target and back; the hash must
// match at the far end and on return. CIPHERBENCH_LONG=1 carries 64 MB.
const SIZE = (process.env.CIPHERBENCH_LONG === '1' ? 64 : 8) * 1024 * 1024;
const KEY = 'interop-test-password';
const PORT = 23080;

// Every method libev has; blinksocks' own (chacha20-poly1305 with its 8-byte
// nonce, rc4-md5-6, none) are proven against blinksocks in
// interop-blinksocks-catalogue.test.js.
const libevHas = (method) => shadowsocksLibev.validate({ impl: 'shadowsocks-libev', method }).length === 0;
const chains = [
  ...Object.keys(STREAM_METHODS).map((method) => ({ method, presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method } }] })),
  ...Object.keys(AEAD_METHODS).map((method) => ({ method, presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }] })),
].filter(({ method }) => libevHas(method));

describe('wire compatibility with shadowsocks-libev', () => {
  let echo;
  before(async () => {
    echo = await startEchoServer();
  });
  after(async () => {
    await stopAll();
    await echo?.close();
  });

  for (const { method, presets } of chains) {
    test(method, { timeout: 120_000 }, async (t) => {
      if (!requirePrograms(t, 'ss-server', 'ss-tunnel')) return;
      t.after(stopAll);
      const forwardPort = echo.port;
      await Promise.all([
        startSsServer({ port: PORT + 2, key: KEY, method }),
        startRelayClient({ port: PORT + 1, serverPort: PORT + 2, forwardPort, key: KEY, presets }),
        startRelayServer({ port: PORT + 4, key: KEY, presets }),
        startSsTunnel({ port: PORT + 3, serverPort: PORT + 4, forwardPort, key: KEY, method }),
        startRelayServer({ port: PORT + 6, key: KEY, presets }),
        startRelayClient({ port: PORT + 5, serverPort: PORT + 6, forwardPort, key: KEY, presets }),
      ]);
      const paths = { 'ours -> ss-server': PORT + 1, 'ss-tunnel -> ours': PORT + 3, 'ours -> ours': PORT + 5 };
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
      const sentHashes = results.map((r) => r.sent).sort();
      assert.deepEqual(farEnd.map((r) => r.sha256).sort(), sentHashes, 'bytes at the far end equal the bytes sent');
    });
  }
});
