import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { clientBytes } from '../benchmark/programs/support/hostile.js';
import { singBoxClientConfig, singBoxServerConfig } from '../lib/peers/sing-box.js';
import { xrayClientConfig, xrayServerConfig } from '../lib/peers/xray.js';
import { upgradeRequest as httpupgradeRequest } from '../lib/presets/httpupgrade.js';
import { encodeFrame, upgradeRequest as wsUpgradeRequest } from '../lib/presets/ws.js';
import { echoTargetAndCertificate, startGoPeer } from './support/go-peers.js';
import { assertCarriedEachWay, sharedEchoTarget, startReferencePaths } from './support/interop.js';
import { freePorts } from './support/ports.js';
import { stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// Wire compatibility of our ws and httpupgrade transports with Xray-core
// and sing-box (built by .ci/run), both ways, 2 MB each way checked with
// SHA-256 at both ends:
//   ours -> PEER server -> echo
//   PEER client -> ours -> echo
//   ours -> ours -> echo
// The peers' configs are lib/peers' own, with their `transport` field and
// the path both sides default to ('/cipherbench').
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const PASSWORD = 'transports-interop-password';
const SIZE = 2 * 1024 * 1024;

const vless = { name: 'vless', params: { id: ID } };
const trojan = { name: 'trojan' };
const USERS = {
  vless: { protocol: 'vless', id: ID },
  trojan: { protocol: 'trojan', password: PASSWORD },
};
const ADDRESS = { vless, trojan };

// { program, protocol, transport, tls }: our chain is the protocol's
// preset, the transport's, then tls when asked.
const PAIRINGS = [
  { program: 'xray', protocol: 'vless', transport: 'ws' },
  { program: 'xray', protocol: 'vless', transport: 'ws', tls: true },
  { program: 'xray', protocol: 'vless', transport: 'httpupgrade' },
  { program: 'xray', protocol: 'vless', transport: 'httpupgrade', tls: true },
  { program: 'sing-box', protocol: 'vless', transport: 'ws' },
  { program: 'sing-box', protocol: 'vless', transport: 'ws', tls: true },
  { program: 'sing-box', protocol: 'vless', transport: 'httpupgrade' },
  { program: 'sing-box', protocol: 'trojan', transport: 'ws' },
  { program: 'sing-box', protocol: 'trojan', transport: 'httpupgrade' },
];
// sing-box says it started only at log level info.
const talking = (config) => (user) => ({ ...config(user), log: { level: 'info' } });
const CONFIGS = {
  xray: { server: xrayServerConfig, client: xrayClientConfig },
  'sing-box': { server: talking(singBoxServerConfig), client: talking(singBoxClientConfig) },
};

describe('ws and httpupgrade wire compatibility with Xray and sing-box', () => {
  const { made, echo } = echoTargetAndCertificate('transports');

  for (const { program, protocol, transport, tls } of PAIRINGS) {
    const label = `${protocol} over ${transport}${tls ? ' + tls' : ''}: ours <-> ${program}`;
    test(label, { timeout: 120_000 }, async (t) => {
      if (!requirePrograms(t, program)) return;
      t.after(stopAll);
      const user = { ...USERS[protocol], transport, tls: tls ? made.tls : undefined };
      const presets = [ADDRESS[protocol], { name: transport }, ...(tls ? [{ name: 'tls', params: made.tls }] : [])];
      const { server, client } = CONFIGS[program];
      const paths = await startReferencePaths(echo, {
        key: PASSWORD,
        presets,
        startTheirServer: (port) => startGoPeer(program, made.folder, 'server', server({ ...user, port }), port),
        startTheirClient: ({ port, serverPort, forwardPort }) =>
          startGoPeer(program, made.folder, 'client', client({ ...user, port, serverPort, forwardPort }), port),
      });
      await assertCarriedEachWay(echo, program, paths, { size: SIZE });
    });
  }
});

// A defect of both peers' httpupgrade servers, shown with a raw client:
// each reads the upgrade request through a buffer it then drops (Xray's
// transport/internet/httpupgrade/hub.go reads with a bufio.Reader and
// hands on the bare connection; sing-box's v2rayhttpupgrade/server.go
// discards the buffered reader Hijack returns), so bytes a client sends
// with its request, before the 101, are lost without a word: the VLESS
// request sent with it never reaches the target, while the same bytes
// sent after the 101 do. Our client waits for the 101; our server keeps
// such bytes (test/unit/presets-httpupgrade.test.js).
describe('httpupgrade servers of Xray and sing-box drop the bytes that come with the request', () => {
  const echo = sharedEchoTarget();
  const folder = {};
  before(() => {
    folder.path = mkdtempSync(path.join(tmpdir(), 'cipherbench-httpupgrade-defect-'));
  });
  after(() => rmSync(folder.path, { recursive: true, force: true }));

  // What came back within `ms` (or before a reset, or as soon as `until`
  // matches) on a connection that sends `first`, then `afterAnswer` once
  // the server's head has come. Bytes that should come back are awaited
  // up to 10 s, not a fixed 2: beside a looping benchmark the 101 and
  // the echo through sing-box took longer than 2 s from the connect.
  const exchange = (port, first, afterAnswer, { ms = 2000, until = null } = {}) =>
    new Promise((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      let received = Buffer.alloc(0);
      let answered = false;
      const finish = () => {
        clearTimeout(timer);
        socket.destroy();
        resolve(received.toString('latin1'));
      };
      socket.on('error', finish);
      socket.on('data', (data) => {
        received = Buffer.concat([received, data]);
        if (!answered && received.includes('\r\n\r\n')) {
          answered = true;
          if (afterAnswer) socket.write(afterAnswer);
        }
        if (until?.test(received.toString('latin1'))) finish();
      });
      socket.write(first);
      const timer = setTimeout(finish, ms);
    });

  for (const program of ['xray', 'sing-box']) {
    test(`${program}: a VLESS request sent with the upgrade request is lost; sent after the 101 it is carried`, async (t) => {
      if (!requirePrograms(t, program)) return;
      t.after(stopAll);
      const [port] = await freePorts(1);
      const user = { ...USERS.vless, transport: 'httpupgrade', port };
      await startGoPeer(program, folder.path, `${program}-httpupgrade`, CONFIGS[program].server(user), port);
      const upgrade = httpupgradeRequest({ path: '/cipherbench', host: 'localhost' });
      const request = clientBytes({
        presets: [vless],
        password: PASSWORD,
        target: { host: '127.0.0.1', port: echo.port },
        payload: Buffer.from('hello through httpupgrade'),
      });
      const together = await exchange(port, Buffer.concat([upgrade, request]));
      assert.match(together, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
      assert.doesNotMatch(together, /hello through httpupgrade/, 'the bytes sent with the request were carried');
      // Sent after the 101 it is carried, though not always by sing-box:
      // its ServeHTTP flushes the 101 and only then hijacks, dropping the
      // buffered reader Hijack returns, so bytes that come in between are
      // lost too. Beside a looping benchmark (a fresh-clone CI run, load
      // 11) it reset such a connection 0.46 s in, nothing echoed. Three
      // tries; one must carry.
      const tries = [];
      for (let i = 0; i < 3 && !tries.some((answer) => /hello through httpupgrade/.test(answer)); i++) {
        tries.push(await exchange(port, upgrade, request, { ms: 10_000, until: /hello through httpupgrade/ }));
      }
      if (tries.length > 1)
        t.diagnostic(`${program}: ${tries.length - 1} of ${tries.length} requests sent after the 101 were lost`);
      assert.match(tries.at(-1), /hello through httpupgrade/);
    });
  }
});

// A quirk of sing-box's ws, shown with a raw client beside Xray's: its
// reader answers a client's Close with a Close (sagernet/ws wsutil's
// control handler), then its Close() sends another once the target has
// closed; Xray's (gorilla's) sends one. Our reader reads nothing after the
// first Close, as RFC 6455 5.5.1 lets it, so the second is harmless;
// refused as a frame after the Close, it reset every connection sing-box's
// server closed. A new sing-box that sends one shows here.
describe("how many Close frames Xray's and sing-box's ws servers send", () => {
  const echo = sharedEchoTarget();
  const folder = {};
  before(() => {
    folder.path = mkdtempSync(path.join(tmpdir(), 'cipherbench-ws-closes-'));
  });
  after(() => rmSync(folder.path, { recursive: true, force: true }));

  const wsRequest = () =>
    wsUpgradeRequest({ path: '/cipherbench', host: 'localhost', key: randomBytes(16).toString('base64') });
  // The opcodes of the unmasked frames in `bytes`.
  const opcodes = (bytes) => {
    const found = [];
    for (let at = 0; at + 2 <= bytes.length;) {
      const len7 = bytes[at + 1] & 0x7f;
      const size = len7 === 126 ? 4 : len7 === 127 ? 10 : 2;
      const length =
        len7 === 126 ? bytes.readUInt16BE(at + 2) : len7 === 127 ? Number(bytes.readBigUInt64BE(at + 2)) : len7;
      found.push(bytes[at] & 0x0f);
      at += size + length;
    }
    return found;
  };

  for (const [program, closes] of [
    ['xray', 1],
    ['sing-box', 2],
  ]) {
    test(`${program}: ${closes} Close frame${closes > 1 ? 's' : ''} after a client's Close`, async (t) => {
      if (!requirePrograms(t, program)) return;
      t.after(stopAll);
      const [port] = await freePorts(1);
      const user = { ...USERS.vless, transport: 'ws', port };
      await startGoPeer(program, folder.path, `${program}-ws`, CONFIGS[program].server(user), port);
      const request = clientBytes({
        presets: [vless],
        password: PASSWORD,
        target: { host: '127.0.0.1', port: echo.port },
        payload: Buffer.from('hello'),
      });
      const close = Buffer.concat(encodeFrame([Buffer.from([0x03, 0xe8])], { masked: true, opcode: 0x8 }));
      const received = await new Promise((resolve, reject) => {
        const socket = net.connect({ port, host: '127.0.0.1' });
        let bytes = Buffer.alloc(0);
        socket.on('error', reject);
        let step = 'upgrade';
        // As RFC 6455 4.1 asks, the first frame only after the 101:
        // Xray's server closes a connection that sends one sooner.
        socket.on('data', (data) => {
          bytes = Buffer.concat([bytes, data]);
          if (step === 'upgrade' && bytes.includes('\r\n\r\n')) {
            step = 'echo';
            socket.write(Buffer.concat(encodeFrame([request], { masked: true })));
          } else if (step === 'echo' && bytes.includes('hello')) {
            step = 'close';
            socket.write(close);
          }
        });
        socket.on('close', () => resolve(bytes));
        socket.write(wsRequest());
        setTimeout(() => socket.destroy(), 3000);
      });
      const head = received.indexOf('\r\n\r\n') + 4;
      assert.match(received.toString('latin1', 0, head), /^HTTP\/1\.1 101 /);
      assert.equal(opcodes(received.subarray(head)).filter((opcode) => opcode === 0x8).length, closes);
    });
  }
});
