import { describe, test } from 'node:test';
import { newPsk } from '../lib/crypto/aead-2022-methods.js';
import { freePorts } from './support/ports.js';
import { explainWith, startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { assertUdpCarried } from './support/udp-echo.js';
import { UDP, udpChain, udpEchoForSuite } from './support/udp-suite.js';

// UDP wire compatibility with shadowsocks-rust (1.25), both ways, AEAD and
// every 2022 method:
//   ours -> ssserver -U -> UDP echo
//   sslocal --protocol tunnel -U -> ours -> UDP echo
//   ours -> ours -> UDP echo
// 2,000 datagrams of 1,200 bytes per path, each compared byte for byte on
// return and at the echo target; a lost one is sent again, a changed one
// fails. (-U is TCP and UDP in shadowsocks-rust, -u UDP alone.)
const RUST_READY = /listening on /;
const METHODS = ['aes-256-gcm', '2022-blake3-aes-128-gcm', '2022-blake3-aes-256-gcm', '2022-blake3-chacha20-poly1305'];

describe('UDP wire compatibility with shadowsocks-rust', () => {
  const echo = udpEchoForSuite();

  for (const method of METHODS) {
    test(method, { timeout: 300_000 }, async (t) => {
      if (!requirePrograms(t, 'ssserver', 'sslocal')) return;
      t.after(stopAll);
      const key = method.startsWith('2022-') ? newPsk(method) : 'udp-interop-password';
      const presets = udpChain(method);
      const [theirServerPort, theirClientPort] = await freePorts(2);
      const [ourServer, pairServer, theirServer] = await Promise.all([
        startRelayServer({ key, presets, extra: UDP }),
        startRelayServer({ key, presets, extra: UDP }),
        startProcess('ssserver', ['-U', '-s', `127.0.0.1:${theirServerPort}`, '-k', key, '-m', method], {
          ready: RUST_READY,
        }),
      ]);
      const [ourClient, pairClient, theirClient] = await Promise.all([
        startRelayClient({ serverPort: theirServerPort, forwardPort: echo.port, key, presets, extra: UDP }),
        startRelayClient({ serverPort: pairServer.port, forwardPort: echo.port, key, presets, extra: UDP }),
        startProcess(
          'sslocal',
          [
            '-U',
            '--protocol',
            'tunnel',
            '-b',
            `127.0.0.1:${theirClientPort}`,
            '--forward-addr',
            `127.0.0.1:${echo.port}`,
            '-s',
            `127.0.0.1:${ourServer.port}`,
            '-k',
            key,
            '-m',
            method,
          ],
          { ready: RUST_READY },
        ),
      ]);
      await assertUdpCarried(
        echo,
        {
          'ours -> ssserver': ourClient.port,
          'sslocal -> ours': theirClientPort,
          'ours -> ours': pairClient.port,
        },
        { explain: explainWith([ourServer, pairServer, theirServer, ourClient, pairClient, theirClient]) },
      );
    });
  }
});
