import { describe, test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import shadowsocksLibev from '../lib/peers/shadowsocks-libev.js';
import { assertCarried, sharedEchoTarget } from './support/interop.js';
import { freePorts } from './support/ports.js';
import {
  startRelayClient, startRelayServer, startSsServer, startSsTunnel, stopAll,
} from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// Wire compatibility, proven against shadowsocks-libev in both directions:
//   ours -> ss-server -> echo      (our client encodes what libev decodes, and back)
//   ss-tunnel -> ours -> echo      (our server decodes what libev encodes, and back)
//   ours -> ours -> echo
// Each path carries random bytes to an echo target and back; the hash must
// match at the far end and on return: 4 MB, at least 256 AEAD chunks
// (512 nonces) each way, so the nonce counter carries into its second
// byte against libev's.
// CIPHERBENCH_LONG=1 carries 64 MB.
const SIZE = (process.env.CIPHERBENCH_LONG === '1' ? 64 : 4) * 1024 * 1024;
const KEY = 'interop-test-password';

// Every method libev has; blinksocks' own (chacha20-poly1305 with its 8-byte
// nonce, rc4-md5-6, none) are proven against blinksocks in
// interop-blinksocks-catalogue.test.js.
const libevHas = (method) => shadowsocksLibev.validate({ impl: 'shadowsocks-libev', method }).length === 0;
const chains = [
  ...Object.keys(STREAM_METHODS).map((method) => ({ method, presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method } }] })),
  ...Object.keys(AEAD_METHODS).map((method) => ({ method, presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }] })),
].filter(({ method }) => libevHas(method));

describe('wire compatibility with shadowsocks-libev', () => {
  const echo = sharedEchoTarget();

  for (const { method, presets } of chains) {
    test(method, { timeout: 120_000 }, async (t) => {
      if (!requirePrograms(t, 'ss-server', 'ss-tunnel')) return;
      t.after(stopAll);
      const forwardPort = echo.port;
      const [ourServer, pairServer] = await Promise.all([startRelayServer({ key: KEY, presets }), startRelayServer({ key: KEY, presets })]);
      const [ssServerPort, tunnelPort] = await freePorts(2);
      const [ourClient, pairClient] = await Promise.all([
        startRelayClient({ serverPort: ssServerPort, forwardPort, key: KEY, presets }),
        startRelayClient({ serverPort: pairServer.port, forwardPort, key: KEY, presets }),
        startSsServer({ port: ssServerPort, key: KEY, method }),
        startSsTunnel({ port: tunnelPort, serverPort: ourServer.port, forwardPort, key: KEY, method }),
      ]);
      await assertCarried(echo, { 'ours -> ss-server': ourClient.port, 'ss-tunnel -> ours': tunnelPort, 'ours -> ours': pairClient.port }, { size: SIZE });
    });
  }
});
