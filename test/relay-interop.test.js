import { describe, test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import shadowsocksLibev from '../lib/peers/shadowsocks-libev.js';
import { assertCarried, sharedEchoTarget, startReferencePaths } from './support/interop.js';
import { startSsServer, startSsTunnel, stopAll } from './support/processes.js';
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
// relay-interop-blinksocks-catalogue.test.js.
const libevHas = (method) => shadowsocksLibev.validate({ impl: 'shadowsocks-libev', method }).length === 0;
const chains = [
  ...Object.keys(STREAM_METHODS).map((method) => ({
    method,
    presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method } }],
  })),
  ...Object.keys(AEAD_METHODS).map((method) => ({
    method,
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }],
  })),
].filter(({ method }) => libevHas(method));

describe('wire compatibility with shadowsocks-libev', () => {
  const echo = sharedEchoTarget();

  for (const { method, presets } of chains) {
    test(method, { timeout: 120_000 }, async (t) => {
      if (!requirePrograms(t, 'ss-server', 'ss-tunnel')) return;
      t.after(stopAll);
      const paths = await startReferencePaths(echo, {
        key: KEY,
        presets,
        startTheirServer: (port) => startSsServer({ port, key: KEY, method }),
        startTheirClient: ({ port, serverPort, forwardPort }) =>
          startSsTunnel({ port, serverPort, forwardPort, key: KEY, method }),
      });
      await assertCarried(
        echo,
        {
          'ours -> ss-server': paths.ourClient,
          'ss-tunnel -> ours': paths.theirClient,
          'ours -> ours': paths.pairClient,
        },
        { size: SIZE },
      );
    });
  }
});
