import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { AEAD_2022_METHODS, newPsk } from '../../lib/crypto/aead-2022-methods.js';
import { writeCertificateFiles } from '../../lib/peers/certificate-files.js';
import { assertCarriedEachWay, sharedEchoTarget, startReferencePaths } from './interop.js';
import { freePorts } from './ports.js';
import { explainWith, startProcess, startRelayClient, startRelayServer, stopAll } from './processes.js';
import { requirePrograms } from './programs.js';
import { assertUdpCarried } from './udp-echo.js';
import { UDP, udpEchoForSuite } from './udp-suite.js';

// What the Xray and sing-box wire tests share: the pairings issue 50 names
// (each a protocol, our chain for it and the peer's user fields), starting
// a Go peer from a config written for the test, and the two suites (TCP
// with 2 MB each way, UDP with 2,000 datagrams) every peer runs.

const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const PASSWORD = 'go-peer-interop-password';
const SIZE = 2 * 1024 * 1024;

// { label, key, user, presets(tls), tls?, udp? } per pairing: `user` is
// what the peer's config functions take, `presets` our chain for the same
// wire, `udp` where both carry the protocol's UDP.
export function goPeerPairings() {
  const ss = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305'].map((method) => ({
    label: `shadowsocks ${method}`,
    key: PASSWORD,
    user: { protocol: 'shadowsocks', method, password: PASSWORD },
    presets: () => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }],
    udp: true,
  }));
  const ss2022 = Object.keys(AEAD_2022_METHODS).map((method) => {
    const key = newPsk(method);
    return {
      label: `shadowsocks ${method}`,
      key,
      user: { protocol: 'shadowsocks', method, password: key },
      presets: () => [{ name: 'ss-2022', params: { method } }],
      udp: true,
    };
  });
  const withTls = (address, tls) => [address, { name: 'tls', params: tls }];
  return [
    ...ss,
    ...ss2022,
    {
      label: 'vmess aes-128-gcm (AEAD header)',
      key: PASSWORD,
      user: { protocol: 'vmess', id: ID, security: 'aes-128-gcm' },
      presets: () => [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }],
    },
    {
      label: 'vless + tls',
      key: PASSWORD,
      tls: true,
      user: { protocol: 'vless', id: ID },
      presets: (tls) => withTls({ name: 'vless', params: { id: ID } }, tls),
    },
    {
      label: 'trojan + tls',
      key: PASSWORD,
      tls: true,
      user: { protocol: 'trojan', password: PASSWORD },
      presets: (tls) => withTls({ name: 'trojan' }, tls),
    },
  ];
}

// A Go peer (xray or sing-box, `run -c FILE`) ready once it says it
// started and listens on `port` (TCP).
export function startGoPeer(program, folder, name, config, port) {
  const file = path.join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return startProcess(program, ['run', '-c', file], { ready: /started/, listening: port });
}

// A folder with a certificate made for the describe that calls it:
// { folder, tls: { cert, key, ca } } once its before ran.
function certificateFolder(name) {
  const made = {};
  before(() => {
    made.folder = mkdtempSync(path.join(tmpdir(), `cipherbench-${name}-test-`));
    const { cert, key } = writeCertificateFiles(made.folder);
    made.tls = { cert, key, ca: cert };
  });
  return made;
}

// The describe's echo target and a certificate folder (certificateFolder),
// the folder removed after its tests: { made, echo }, read inside tests.
export function echoTargetAndCertificate(name) {
  const made = certificateFolder(name);
  const echo = sharedEchoTarget({ cleanup: () => rmSync(made.folder, { recursive: true, force: true }) });
  return { made, echo };
}

// Every pairing both ways over TCP, through to an echo target:
//   ours -> PROGRAM server -> echo
//   PROGRAM client -> ours -> echo
//   ours -> ours -> echo
// `serverConfig(user)` and `clientConfig(user)` are the peer's config
// functions (a test may wrap them); `transfer(pairing, path)` gives a
// path's echoTransfer options where a defect of the peer needs one.
export function describeTcpPairings(program, { serverConfig, clientConfig, transfer = () => ({}) }) {
  describe(`TCP wire compatibility with ${program}`, () => {
    const { made, echo } = echoTargetAndCertificate(program);
    for (const pairing of goPeerPairings()) {
      test(`${pairing.label}: ours <-> ${program}`, { timeout: 120_000 }, async (t) => {
        if (!requirePrograms(t, program)) return;
        t.after(stopAll);
        const files = pairing.tls ? made.tls : undefined;
        const user = { ...pairing.user, tls: files };
        const paths = await startReferencePaths(echo, {
          key: pairing.key,
          presets: pairing.presets(made.tls),
          startTheirServer: (port) =>
            startGoPeer(program, made.folder, 'server', serverConfig({ ...user, port }), port),
          startTheirClient: ({ port, serverPort, forwardPort }) =>
            startGoPeer(program, made.folder, 'client', clientConfig({ ...user, port, serverPort, forwardPort }), port),
        });
        await assertCarriedEachWay(echo, program, paths, { size: SIZE, transfer: (at) => transfer(pairing, at) });
      });
    }
  });
}

// Every pairing with UDP both ways, 2,000 datagrams of 1,200 bytes per
// path, each compared at the echo target:
//   ours -> PROGRAM server -> UDP echo
//   PROGRAM client (its port forward, UDP too) -> ours -> UDP echo
//   ours -> ours -> UDP echo
export function describeUdpPairings(program, { serverConfig, clientConfig }) {
  describe(`UDP wire compatibility with ${program}`, () => {
    const made = certificateFolder(program);
    const echo = udpEchoForSuite();
    for (const pairing of goPeerPairings().filter(({ udp }) => udp)) {
      test(`${pairing.label}: ours <-> ${program}, UDP`, { timeout: 300_000 }, async (t) => {
        if (!requirePrograms(t, program)) return;
        t.after(stopAll);
        const { key, user } = pairing;
        const presets = pairing.presets(made.tls);
        const [theirServerPort, theirClientPort] = await freePorts(2);
        const [ourServer, pairServer, theirServer] = await Promise.all([
          startRelayServer({ key, presets, extra: UDP }),
          startRelayServer({ key, presets, extra: UDP }),
          startGoPeer(
            program,
            made.folder,
            'server',
            serverConfig({ ...user, port: theirServerPort }),
            theirServerPort,
          ),
        ]);
        const [ourClient, pairClient, theirClient] = await Promise.all([
          startRelayClient({ serverPort: theirServerPort, forwardPort: echo.port, key, presets, extra: UDP }),
          startRelayClient({ serverPort: pairServer.port, forwardPort: echo.port, key, presets, extra: UDP }),
          startGoPeer(
            program,
            made.folder,
            'client',
            clientConfig({
              ...user,
              port: theirClientPort,
              serverPort: ourServer.port,
              forwardPort: echo.port,
              udp: true,
            }),
            theirClientPort,
          ),
        ]);
        await assertUdpCarried(
          echo,
          {
            [`ours -> ${program}`]: ourClient.port,
            [`${program} -> ours`]: theirClientPort,
            'ours -> ours': pairClient.port,
          },
          { explain: explainWith([ourServer, pairServer, theirServer, ourClient, pairClient, theirClient]) },
        );
      });
    }
  });
}
