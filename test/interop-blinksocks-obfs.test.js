import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_TEMPLATE } from '../lib/presets/obfs/http-template.js';
import {
  freePort, requireBlinksocks, startBlinksocksClient, startBlinksocksServer,
} from './support/blinksocks-pair.js';
import { startEchoServer } from './support/echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { echoTransfer } from './support/transfer.js';

// Wire compatibility of the obfs presets with blinksocks 3.3.0, both ways,
// through to an echo target:
//   ours -> blinksocks server -> echo   (our client's frames, handshake and
//                                        records are what blinksocks reads)
//   blinksocks client -> ours -> echo   (and the other way round)
//   ours -> ours -> echo
// 2 MB of random bytes each way per path, hashed at the far end and on return.
const SIZE = 2 * 1024 * 1024;
const KEY = 'obfs-interop-password';

const base = { name: 'ss-base' };
const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const ctr = { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } };
const padding = { name: 'obfs-random-padding' };
// blinksocks reads the template relative to its own working folder: the
// bundled one by its full path serves both.
const http = { name: 'obfs-http', params: { file: DEFAULT_TEMPLATE } };
const tls = (sni) => ({ name: 'obfs-tls1.2-ticket', params: { sni } });

const CHAINS = {
  'obfs-random-padding between ss-base and aes-256-gcm': [base, padding, gcm],
  'obfs-tls1.2-ticket after aes-256-ctr': [base, ctr, tls(['test.com'])],
  'obfs-http after aes-256-gcm': [base, gcm, http],
  'depth 4: padding, aes-256-gcm, obfs-tls1.2-ticket': [base, padding, gcm, tls('test.com')],
};

describe('wire compatibility of the obfs presets with blinksocks 3.3.0', () => {
  let echo;
  before(async () => {
    echo = await startEchoServer();
  });
  after(async () => {
    await stopAll();
    await echo?.close();
  });

  for (const [label, presets] of Object.entries(CHAINS)) {
    test(label, { timeout: 90_000 }, async (t) => {
      if (!requireBlinksocks(t)) return;
      t.after(stopAll);
      const forwardPort = echo.port;
      const [p1, p2, p3, p4, p5, p6] = await Promise.all(Array.from({ length: 6 }, freePort));
      await Promise.all([
        startBlinksocksServer({ port: p2, key: KEY, presets }),
        startRelayClient({ port: p1, serverPort: p2, forwardPort, key: KEY, presets }),
        startRelayServer({ port: p4, key: KEY, presets }),
        startBlinksocksClient({ port: p3, serverPort: p4, forwardPort, key: KEY, presets }),
        startRelayServer({ port: p6, key: KEY, presets }),
        startRelayClient({ port: p5, serverPort: p6, forwardPort, key: KEY, presets }),
      ]);
      const paths = { 'ours -> blinksocks server': p1, 'blinksocks client -> ours': p3, 'ours -> ours': p5 };
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
    });
  }
});
