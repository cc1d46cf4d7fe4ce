import { describe, test } from 'node:test';
import { DEFAULT_TEMPLATE } from '../lib/presets/obfs/http-template.js';
import { requireBlinksocks, startBlinksocksClient, startBlinksocksServer } from './support/blinksocks-pair.js';
import { assertCarried, sharedEchoTarget, startReferencePaths } from './support/interop.js';
import { stopAll } from './support/processes.js';

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
  const echo = sharedEchoTarget();

  for (const [label, presets] of Object.entries(CHAINS)) {
    test(label, { timeout: 90_000 }, async (t) => {
      if (!requireBlinksocks(t)) return;
      t.after(stopAll);
      const paths = await startReferencePaths(echo, {
        key: KEY,
        presets,
        startTheirServer: (port) => startBlinksocksServer({ port, key: KEY, presets }),
        startTheirClient: ({ port, serverPort, forwardPort }) =>
          startBlinksocksClient({ port, serverPort, forwardPort, key: KEY, presets }),
      });
      await assertCarried(
        echo,
        {
          'ours -> blinksocks server': paths.ourClient,
          'blinksocks client -> ours': paths.theirClient,
          'ours -> ours': paths.pairClient,
        },
        { size: SIZE },
      );
    });
  }
});
