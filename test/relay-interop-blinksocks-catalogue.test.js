import { describe, test } from 'node:test';
import {
  removeBlinksocksFolders,
  requireBlinksocks,
  startBlinksocksClient,
  startBlinksocksServer,
} from './support/blinksocks-peer.js';
import { assertCarried, sharedEchoTarget } from './support/interop.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';

// Wire compatibility with blinksocks 3.3.0 for the presets and methods only
// blinksocks has, both ways, through to an echo target:
//   ours -> blinksocks server -> echo
//   blinksocks client -> ours -> echo
// 2 MB of random bytes each way; the hashes must match at the far end and on
// return. (libev 3.3.5 has none of chacha20-poly1305, rc4-md5-6 and none.)
const SIZE = 2 * 1024 * 1024;
const KEY = 'catalogue-interop-password';

const CHAINS = [
  [{ name: 'base-auth' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }],
  [{ name: 'base-auth' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
  [{ name: 'base-auth' }, { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } }],
  [
    { name: 'base-auth', params: { method: 'md5' } },
    { name: 'ss-stream-cipher', params: { method: 'none' } },
  ],
  [
    { name: 'base-auth', params: { method: 'sha256' } },
    { name: 'aead-random-cipher', params: { method: 'aes-128-gcm', info: 'other-subkey', factor: 10 } },
  ],
  [{ name: 'ss-base' }, { name: 'aead-random-cipher', params: { method: 'aes-192-gcm', factor: 1 } }],
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-poly1305' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'rc4-md5-6' } }],
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'none' } }],
  // Refused by blinksocks on Node > 10 unless its version check is lifted.
  [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'chacha20-ietf' } }],
];

const label = (presets) =>
  presets.map(({ name, params }) => (params ? `${name}(${Object.values(params).join(', ')})` : name)).join(' + ');

describe('wire compatibility with blinksocks 3.3.0: the catalogue', () => {
  const echo = sharedEchoTarget({ cleanup: removeBlinksocksFolders });

  for (const presets of CHAINS) {
    test(label(presets), { timeout: 120_000 }, async (t) => {
      if (!requireBlinksocks(t)) return;
      t.after(stopAll);
      const forwardPort = echo.port;
      const [theirServer, ourServer] = await Promise.all([
        startBlinksocksServer({ key: KEY, presets }),
        startRelayServer({ key: KEY, presets }),
      ]);
      const [theirClient, ourClient] = await Promise.all([
        startBlinksocksClient({ key: KEY, presets, serverPort: ourServer.port, forwardPort }),
        startRelayClient({ serverPort: theirServer.port, forwardPort, key: KEY, presets }),
      ]);
      const outputs = {
        'blinksocks server': theirServer.child,
        'our server': ourServer,
        'blinksocks client': theirClient.child,
        'our client': ourClient,
      };
      const explain = (path, error) =>
        new Error(
          `${path}: ${error.message}\n${Object.entries(outputs)
            .map(([name, child]) => `--- ${name}:\n${child.output.slice(-2000)}`)
            .join('\n')}`,
        );
      // One after the other: two blinksocks and two of ours share 2 cores.
      await assertCarried(
        echo,
        { 'ours -> blinksocks server': ourClient.port, 'blinksocks client -> ours': theirClient.port },
        { size: SIZE, oneAtATime: true, explain },
      );
    });
  }
});
