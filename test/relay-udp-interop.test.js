import { describe, test } from 'node:test';
import { freePorts } from './support/ports.js';
import { explainWith, startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { assertUdpCarried } from './support/udp-echo.js';
import { UDP, udpChain, udpEchoForSuite } from './support/udp-suite.js';

// UDP wire compatibility with shadowsocks-libev, both ways, and ours to ours:
//   ours -> ss-server -u -> UDP echo      (our datagrams open in libev, its replies in ours)
//   ss-tunnel -u -> ours -> UDP echo      (libev's datagrams open in ours, ours in libev)
//   ours -> ours -> UDP echo
// 2,000 datagrams of 1,200 bytes per path, each compared byte for byte on
// return and at the echo target; a lost one is sent again (loopback UDP
// drops under load), a changed one fails.
const KEY = 'udp-interop-password';
const METHODS = ['aes-256-gcm', 'chacha20-ietf-poly1305', 'aes-256-ctr'];

describe('UDP wire compatibility with shadowsocks-libev', () => {
  const echo = udpEchoForSuite();

  for (const method of METHODS) {
    test(method, { timeout: 300_000 }, async (t) => {
      const presets = udpChain(method);
      if (!requirePrograms(t, 'ss-server', 'ss-tunnel')) return;
      t.after(stopAll);
      const [theirServerPort, theirClientPort] = await freePorts(2);
      const [ourServer, pairServer] = await Promise.all([
        startRelayServer({ key: KEY, presets, extra: UDP }),
        startRelayServer({ key: KEY, presets, extra: UDP }),
      ]);
      const theirServer = await startProcess(
        'ss-server',
        ['-u', '-s', '127.0.0.1', '-p', String(theirServerPort), '-k', KEY, '-m', method],
        { ready: /listening at/, listening: theirServerPort },
      );
      const [ourClient, pairClient, theirClient] = await Promise.all([
        startRelayClient({ serverPort: theirServerPort, forwardPort: echo.port, key: KEY, presets, extra: UDP }),
        startRelayClient({ serverPort: pairServer.port, forwardPort: echo.port, key: KEY, presets, extra: UDP }),
        startProcess(
          'ss-tunnel',
          [
            '-u',
            '-s',
            '127.0.0.1',
            '-p',
            String(ourServer.port),
            '-b',
            '127.0.0.1',
            '-l',
            String(theirClientPort),
            '-L',
            `127.0.0.1:${echo.port}`,
            '-k',
            KEY,
            '-m',
            method,
          ],
          { ready: /listening at/, listening: theirClientPort },
        ),
      ]);
      await assertUdpCarried(
        echo,
        {
          'ours -> ss-server': ourClient.port,
          'ss-tunnel -> ours': theirClientPort,
          'ours -> ours': pairClient.port,
        },
        { explain: explainWith([ourServer, pairServer, theirServer, ourClient, pairClient, theirClient]) },
      );
    });
  }
});
