import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { writeCertificateFiles } from '../lib/peers/certificate-files.js';
import { trojanForwardConfig, trojanServerConfig } from '../lib/peers/trojan-gfw.js';
import { v2rayClientConfig, v2rayServerConfig } from '../lib/peers/v2ray.js';
import { TLS13_SUITES } from '../lib/presets/tls.js';
import { assertCarried, sharedEchoTarget } from './support/interop.js';
import { startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { freePorts } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

// Wire compatibility of trojan, vless and tls, through to an echo target,
// 2 MB each way, hashes compared at the far end and on return:
//   trojan + tls: ours -> V2Ray 4.34 (trojan inbound) and trojan-gfw 1.16
//     (server); V2Ray's trojan outbound and trojan-gfw's forward client ->
//     ours; ours -> ours;
//   vless + tls and v2ray-vmess + tls: ours <-> V2Ray 4.34 both ways,
//     ours -> ours;
//   ours -> ours over each TLS 1.3 suite, over TLS 1.2, and for a
//     Shadowsocks chain ending in tls, each saying the suite it negotiated.
// Every TLS connection verifies a certificate made for this file.
const SIZE = 2 * 1024 * 1024;
const KEY = 'trojan-interop-password';
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';

describe('trojan, vless and tls wire compatibility', () => {
  let folder;
  let tls;
  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-tls-test-'));
    const { cert, key } = writeCertificateFiles(folder);
    tls = { cert, key, ca: cert };
  });
  const echo = sharedEchoTarget({ cleanup: () => rmSync(folder, { recursive: true, force: true }) });
  const withTls = (address, params = {}) => [address, { name: 'tls', params: { ...tls, ...params } }];

  const startWithConfig = (program, args, name, config, port) => {
    const file = path.join(folder, `${name}.json`);
    writeFileSync(file, JSON.stringify(config));
    return startProcess(program, [...args, file], { ready: /./, listening: port });
  };
  const startV2ray = (name, config, port) => startWithConfig('v2ray', ['-config'], name, config, port);
  const startTrojan = (name, config, port) => startWithConfig('trojan', ['-c'], name, config, port);
  const carry = (paths) => assertCarried(echo, paths, { size: SIZE, oneAtATime: true });

  const addresses = {
    trojan: { name: 'trojan' },
    vless: { name: 'vless', params: { id: ID } },
    vmess: { name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } },
  };
  for (const protocol of ['trojan', 'vless', 'vmess']) {
    test(`${protocol} + tls: ours <-> V2Ray 4.34`, { timeout: 90_000 }, async (t) => {
      if (!requirePrograms(t, 'v2ray')) return;
      t.after(stopAll);
      const presets = withTls(addresses[protocol]);
      const user = { protocol, id: ID, password: KEY, security: 'aes-128-gcm', tls };
      const ourServer = await startRelayServer({ key: KEY, presets });
      const [v2rayServer, v2rayClient] = await freePorts(2);
      const [ourClient, pairClient] = await Promise.all([
        startRelayClient({ serverPort: v2rayServer, forwardPort: echo.port, key: KEY, presets }),
        startRelayClient({ serverPort: ourServer.port, forwardPort: echo.port, key: KEY, presets }),
        startV2ray(`${protocol}-server`, v2rayServerConfig({ ...user, port: v2rayServer }), v2rayServer),
        startV2ray(
          `${protocol}-client`,
          v2rayClientConfig({ ...user, port: v2rayClient, serverPort: ourServer.port, forwardPort: echo.port }),
          v2rayClient,
        ),
      ]);
      await carry({ 'ours -> v2ray': ourClient.port, 'v2ray -> ours': v2rayClient, 'ours -> ours': pairClient.port });
    });
  }

  test('trojan + tls: ours <-> trojan-gfw 1.16', { timeout: 90_000 }, async (t) => {
    if (!requirePrograms(t, 'trojan')) return;
    t.after(stopAll);
    const presets = withTls({ name: 'trojan' });
    const ourServer = await startRelayServer({ key: KEY, presets });
    const [trojanServer, trojanClient, unused] = await freePorts(3);
    const [ourClient] = await Promise.all([
      startRelayClient({ serverPort: trojanServer, forwardPort: echo.port, key: KEY, presets }),
      startTrojan(
        'trojan-server',
        trojanServerConfig({ port: trojanServer, password: KEY, fallbackPort: unused, cert: tls.cert, key: tls.key }),
        trojanServer,
      ),
      startTrojan(
        'trojan-forward',
        trojanForwardConfig({
          port: trojanClient,
          serverPort: ourServer.port,
          forwardPort: echo.port,
          password: KEY,
          ca: tls.ca,
        }),
        trojanClient,
      ),
    ]);
    await carry({ 'ours -> trojan-gfw': ourClient.port, 'trojan-gfw -> ours': trojanClient });
  });

  // The certificate is made before the first test: chains are built then.
  const chains = [
    ...TLS13_SUITES.map((suite) => ({
      label: `trojan + tls ${suite}`,
      presets: () => withTls({ name: 'trojan' }, { ciphers: suite }),
      negotiated: `TLSv1.3 ${suite}`,
    })),
    {
      label: 'vless + tls 1.2 ECDHE-ECDSA-CHACHA20-POLY1305',
      presets: () =>
        withTls({ name: 'vless', params: { id: ID } }, { version: '1.2', ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305' }),
      negotiated: 'TLSv1.2 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
    },
    {
      label: 'ss-base + ss-aead-cipher(aes-128-gcm) + tls',
      presets: () =>
        withTls({ name: 'ss-base' }).toSpliced(1, 0, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }),
      negotiated: 'TLSv1.3 ',
    },
  ];
  for (const { label, presets: chain, negotiated } of chains) {
    test(`${label}: ours -> ours, and the suite it negotiated is said`, { timeout: 60_000 }, async (t) => {
      t.after(stopAll);
      const presets = chain();
      const server = await startRelayServer({ key: KEY, presets });
      const client = await startRelayClient({ serverPort: server.port, forwardPort: echo.port, key: KEY, presets });
      await carry({ 'ours -> ours': client.port });
      assert.ok(
        client.output.includes(`info: transport: ${negotiated}`),
        `client says ${JSON.stringify(negotiated)}:\n${client.output}`,
      );
      assert.match(client.output, /certificate verified/);
      assert.ok(server.output.includes(`info: transport: ${negotiated}`), server.output);
    });
  }
});
