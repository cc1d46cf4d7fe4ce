import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';
import { writeCertificateFiles } from '../lib/peers/certificate-files.js';
import { xrayClientConfig, xrayServerConfig } from '../lib/peers/xray.js';
import { startEchoServer } from './support/echo-server.js';
import { describeTcpPairings, describeUdpPairings, goPeerPairings, startGoPeer } from './support/go-peers.js';
import { freePorts } from './support/ports.js';
import { startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// Wire compatibility with Xray-core 26.3.27 (built by .ci/run), both ways,
// for every pairing of test/support/go-peers.js: Shadowsocks AEAD and 2022
// (TCP and UDP), VMess with the AEAD header, VLESS and Trojan over our tls.
// Two defects of Xray's own, which xray -> xray shows as well (the last
// tests, and docs/xray-sing-box.md), are worked around on the path they
// touch:
// - its Shadowsocks 2022 server never passes a client's FIN, nor its
//   close, on to the target, which stays open until Xray's idle timeout
//   (300 s): that path closes once every byte is back, and its server's
//   idle timeout is 2 s, so the target's side ends in time to be checked;
// - its Trojan client fails a first read larger than its 8 KB buffer
//   ("failed to write A request payload > common/buf: buffer is full") and
//   resets: that path sends 1 KB first, as an application that speaks in a
//   small first message, and the rest once it came back.
const is2022 = (user) => user.method?.startsWith('2022-') === true;
const IDLE_AFTER_2_S = { policy: { levels: { 0: { connIdle: 2 } } } };

const serverConfig = (user) => ({ ...xrayServerConfig(user), ...(is2022(user) ? IDLE_AFTER_2_S : {}) });
const transfer = ({ user }, at) => {
  if (at === 'ours -> xray' && is2022(user)) return { abortWhenBack: true };
  if (at === 'xray -> ours' && user.protocol === 'trojan') return { firstPiece: 1024 };
  return {};
};

describeTcpPairings('xray', { serverConfig, clientConfig: xrayClientConfig, transfer });
describeUdpPairings('xray', { serverConfig: xrayServerConfig, clientConfig: xrayClientConfig });

// The two defects, xray to xray, so that a new pinned Xray that fixes them
// shows here and the workarounds above can go.
describe("Xray's own defects, xray -> xray", () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-xray-defects-'));
  const { cert, key } = writeCertificateFiles(folder);
  const tls = { cert, key };
  let echo;
  after(async () => {
    await stopAll();
    await echo?.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const defects = [
    {
      label: 'its Shadowsocks 2022 server keeps a half-closed connection open',
      user: goPeerPairings().find(({ user }) => user.method === '2022-blake3-aes-128-gcm').user,
      transfer: { size: 1024 },
      expected: /timed out with 1024 of 1024 bytes back/,
    },
    {
      label: 'its Trojan client resets on a first read over its buffer',
      user: { ...goPeerPairings().find(({ user }) => user.protocol === 'trojan').user, tls },
      transfer: { size: 2 * 1024 * 1024 },
      expected: /ECONNRESET|EPIPE/,
    },
  ];
  for (const defect of defects) {
    test(defect.label, { timeout: 60_000 }, async (t) => {
      if (!requirePrograms(t, 'xray')) return;
      t.after(stopAll);
      echo ??= await startEchoServer();
      const [serverPort, clientPort] = await freePorts(2);
      await startGoPeer('xray', folder, 'server', xrayServerConfig({ ...defect.user, port: serverPort }), serverPort);
      await startGoPeer(
        'xray',
        folder,
        'client',
        xrayClientConfig({ ...defect.user, port: clientPort, serverPort, forwardPort: echo.port }),
        clientPort,
      );
      await assert.rejects(echoTransfer({ port: clientPort, ...defect.transfer, timeoutMs: 5_000 }), defect.expected);
    });
  }
});

// A Vision client (flow xtls-rprx-vision) at our VLESS server, which has no
// flow: the request's addons name one, so the server refuses it as it
// refuses any request it cannot carry (read on to the handshake timeout,
// no close that depends on the bytes), and nothing reaches the target; a
// plain VLESS client is served beside it.
test('an Xray Vision client at our VLESS server: refused, the target never reached', { timeout: 60_000 }, async (t) => {
  if (!requirePrograms(t, 'xray')) return;
  const folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-xray-vision-'));
  const echo = await startEchoServer();
  t.after(async () => {
    await stopAll();
    await echo.close();
    rmSync(folder, { recursive: true, force: true });
  });
  const { cert, key } = writeCertificateFiles(folder);
  const tls = { cert, key, ca: cert };
  const id = goPeerPairings().find(({ user }) => user.protocol === 'vless').user.id;
  const server = await startRelayServer({
    key: 'unused',
    presets: [
      { name: 'vless', params: { id } },
      { name: 'tls', params: tls },
    ],
    extra: ['--log-level', 'debug'],
  });
  const [visionPort, plainPort] = await freePorts(2);
  const user = { protocol: 'vless', id, serverPort: server.port, forwardPort: echo.port, tls };
  await startGoPeer(
    'xray',
    folder,
    'vision',
    xrayClientConfig({ ...user, flow: 'xtls-rprx-vision', port: visionPort }),
    visionPort,
  );
  await startGoPeer('xray', folder, 'plain', xrayClientConfig({ ...user, port: plainPort }), plainPort);
  await assert.rejects(echoTransfer({ port: visionPort, size: 64 * 1024, timeoutMs: 3_000 }), /timed out with 0 of/);
  assert.equal(echo.received.length, 0, 'the Vision request reached no target');
  assert.match(server.output, /VLESS addons \(\d+ bytes: a flow\) are not carried/);
  const served = await echoTransfer({ port: plainPort, size: 64 * 1024 });
  assert.equal(served.returned, served.sent);
});
