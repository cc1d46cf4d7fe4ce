import { describe, test } from 'node:test';
import { AEAD_2022_METHODS, newPsk } from '../lib/crypto/aead-2022-methods.js';
import { assertCarried, sharedEchoTarget, startReferencePaths } from './support/interop.js';
import { startProcess, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// SIP022 wire compatibility with shadowsocks-rust (1.25), both ways, every
// 2022 method:
//   ours -> ssserver -> echo           (our request and our response decoder)
//   sslocal --protocol tunnel -> ours -> echo   (our request decoder and our response)
//   ours -> ours -> echo
// 2 MB each way per path, checked with SHA-256 at the echo target and on
// return. .ci/run builds shadowsocks-rust; without it this fails under CI.
const SIZE = 2 * 1024 * 1024;
const RUST_READY = /listening on /;

const startSsRustServer = ({ port, key, method }) =>
  startProcess('ssserver', ['-s', `127.0.0.1:${port}`, '-k', key, '-m', method], { ready: RUST_READY });

const startSsRustTunnel = ({ port, serverPort, forwardPort, key, method }) =>
  startProcess(
    'sslocal',
    [
      '--protocol',
      'tunnel',
      '-b',
      `127.0.0.1:${port}`,
      '--forward-addr',
      `127.0.0.1:${forwardPort}`,
      '-s',
      `127.0.0.1:${serverPort}`,
      '-k',
      key,
      '-m',
      method,
    ],
    { ready: RUST_READY },
  );

describe('SIP022 wire compatibility with shadowsocks-rust', () => {
  const echo = sharedEchoTarget();

  for (const method of Object.keys(AEAD_2022_METHODS)) {
    test(method, { timeout: 120_000 }, async (t) => {
      if (!requirePrograms(t, 'ssserver', 'sslocal')) return;
      t.after(stopAll);
      const key = newPsk(method);
      const presets = [{ name: 'ss-2022', params: { method } }];
      const paths = await startReferencePaths(echo, {
        key,
        presets,
        startTheirServer: (port) => startSsRustServer({ port, key, method }),
        startTheirClient: ({ port, serverPort, forwardPort }) =>
          startSsRustTunnel({ port, serverPort, forwardPort, key, method }),
      });
      await assertCarried(
        echo,
        { 'ours -> ssserver': paths.ourClient, 'sslocal -> ours': paths.theirClient, 'ours -> ours': paths.pairClient },
        { size: SIZE },
      );
    });
  }
});
