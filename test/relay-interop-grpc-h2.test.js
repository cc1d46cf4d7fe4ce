import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { singBoxClientConfig, singBoxServerConfig } from '../lib/peers/sing-box.js';
import { v2rayClientConfig, v2rayServerConfig } from '../lib/peers/v2ray.js';
import { xrayClientConfig, xrayServerConfig } from '../lib/peers/xray.js';
import { echoTargetAndCertificate, startGoPeer } from './support/go-peers.js';
import { assertCarriedEachWay, startReferencePaths } from './support/interop.js';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';
import { startProcess, startRelayServer, stopAll } from './support/processes.js';
import { freePorts } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

// Wire compatibility of our grpc and h2 transports, both ways, 1 MB each
// way checked with SHA-256 at both ends:
//   ours -> PEER server -> echo
//   PEER client -> ours -> echo
//   ours -> ours -> echo
// grpc against Xray (grpc-go) and sing-box (its own "gun lite" HTTP/2, as
// built without with_grpc), over TCP (h2c) and inside tls; h2 against
// V2Ray 4.34 and sing-box, inside tls only (their clients dial it so);
// and V2Ray 4.34's ws beside them. The peers' configs are lib/peers' own,
// with their `transport` field, and the service name and path our presets
// default to. Inside tls our chain offers ALPN h2, as HTTP/2 asks.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const PASSWORD = 'grpc-h2-interop-password';
const SIZE = 1024 * 1024;
const METHOD = 'aes-256-gcm';

const ADDRESS = {
  vless: { name: 'vless', params: { id: ID } },
  trojan: { name: 'trojan' },
  vmess: { name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } },
  shadowsocks: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: METHOD } }],
};
const USERS = {
  vless: { protocol: 'vless', id: ID },
  trojan: { protocol: 'trojan', password: PASSWORD },
  vmess: { protocol: 'vmess', id: ID, security: 'aes-128-gcm' },
  shadowsocks: { protocol: 'shadowsocks', method: METHOD, password: PASSWORD },
};

const PAIRINGS = [
  { program: 'xray', protocol: 'vless', transport: 'grpc' },
  { program: 'xray', protocol: 'vless', transport: 'grpc', tls: true },
  { program: 'xray', protocol: 'shadowsocks', transport: 'grpc' },
  { program: 'xray', protocol: 'vless', transport: 'grpc', multiMode: true },
  { program: 'sing-box', protocol: 'vless', transport: 'grpc' },
  { program: 'sing-box', protocol: 'trojan', transport: 'grpc', tls: true },
  { program: 'sing-box', protocol: 'vless', transport: 'h2', tls: true },
  { program: 'v2ray', protocol: 'vmess', transport: 'h2', tls: true },
  { program: 'v2ray', protocol: 'vmess', transport: 'ws' },
];

// Xray's multiMode: its client calls TunMulti and sends MultiHunk
// messages; its server serves both paths, as ours does.
const multiMode = (config) => (user) => {
  const made = config(user);
  for (const bound of [...made.inbounds, ...made.outbounds]) {
    if (bound.streamSettings?.grpcSettings) bound.streamSettings.grpcSettings.multiMode = true;
  }
  return made;
};
// sing-box says it started only at log level info.
const talking = (config) => (user) => ({ ...config(user), log: { level: 'info' } });
const startV2ray = (folder, name, config, port) => {
  const file = path.join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return startProcess('v2ray', ['-config', file], { ready: /./, listening: port });
};
const PEERS = {
  xray: { server: xrayServerConfig, client: xrayClientConfig, start: startGoPeer.bind(null, 'xray') },
  'sing-box': {
    server: talking(singBoxServerConfig),
    client: talking(singBoxClientConfig),
    start: startGoPeer.bind(null, 'sing-box'),
  },
  v2ray: { server: v2rayServerConfig, client: v2rayClientConfig, start: startV2ray },
};

describe('grpc and h2 wire compatibility with Xray, sing-box and V2Ray 4.34', () => {
  const { made, echo } = echoTargetAndCertificate('grpc-h2');

  for (const { program, protocol, transport, tls, multiMode: multi } of PAIRINGS) {
    test(
      `${protocol} over ${transport}${multi ? ' (multiMode)' : ''}${tls ? ' + tls' : ''}: ours <-> ${program}`,
      { timeout: 120_000 },
      async (t) => {
        if (!requirePrograms(t, program)) return;
        t.after(stopAll);
        const user = { ...USERS[protocol], transport, tls: tls ? made.tls : undefined };
        const presets = [
          ...[ADDRESS[protocol]].flat(),
          { name: transport, ...(multi ? { params: { multiMode: true } } : {}) },
          ...(tls ? [{ name: 'tls', params: { ...made.tls, alpn: 'h2' } }] : []),
        ];
        const peer = PEERS[program];
        const { start } = peer;
        const server = multi ? multiMode(peer.server) : peer.server;
        const client = multi ? multiMode(peer.client) : peer.client;
        const paths = await startReferencePaths(echo, {
          key: PASSWORD,
          presets,
          startTheirServer: (port) => start(made.folder, 'server', server({ ...user, port }), port),
          startTheirClient: ({ port, serverPort, forwardPort }) =>
            start(made.folder, 'client', client({ ...user, port, serverPort, forwardPort }), port),
        });
        await assertCarriedEachWay(echo, program, paths, { size: SIZE });
      },
    );
  }
});

// The peers' clients pool tunnels on one HTTP/2 connection; our server
// takes one stream a connection and sends GOAWAY at once, so a second
// tunnel while the first is open must come on a connection of its own,
// not wait behind it (iperf3's control connection stays open for its whole
// test): grpc-go (Xray) and Go's http2.Transport (V2Ray) each.
describe("a peer's second tunnel while its first is open", () => {
  const { made, echo } = echoTargetAndCertificate('grpc-h2-pool');

  for (const { program, protocol, transport, tls } of [
    { program: 'xray', protocol: 'vless', transport: 'grpc' },
    { program: 'v2ray', protocol: 'vmess', transport: 'h2', tls: true },
  ]) {
    test(`${program} client over ${transport} -> ours`, { timeout: 60_000 }, async (t) => {
      if (!requirePrograms(t, program)) return;
      t.after(stopAll);
      const presets = [
        ADDRESS[protocol],
        { name: transport },
        ...(tls ? [{ name: 'tls', params: { ...made.tls, alpn: 'h2' } }] : []),
      ];
      const ours = await startRelayServer({ key: PASSWORD, presets });
      const [port] = await freePorts(1);
      const user = { ...USERS[protocol], transport, tls: tls ? made.tls : undefined };
      const config = PEERS[program].client({ ...user, port, serverPort: ours.port, forwardPort: echo.port });
      await PEERS[program].start(made.folder, 'client', config, port);
      const first = net.connect({ port, host: '127.0.0.1' });
      t.after(() => first.destroy());
      first.write('the first tunnel, held open');
      await new Promise((resolve) => first.once('data', resolve));
      const second = await echoTransfer({ port, size: SIZE });
      assert.equal(second.returned, second.sent);
    });
  }
});
