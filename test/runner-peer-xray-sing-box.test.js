import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { locatePeer, validateReference } from '../lib/peers/index.js';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag, freeRunPorts } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';
import { requirePrograms } from './support/programs.js';
import { runRecording } from './support/run-recording.js';

// The xray and sing-box rows of what only they carry, measured by iperf3
// for a second each like our relays: VLESS with REALITY and Vision (which
// borrow the handshake of a TLS site the run starts on loopback), Vision
// over TLS, Hysteria2 and TUIC (QUIC: their servers bind UDP only),
// ShadowTLS v3 over Shadowsocks 2022 (a borrowed handshake too) and AnyTLS;
// then iperf3 -u through the QUIC two. Every process is gone afterwards,
// and every config folder with it.
const ROWS = [
  [{ impl: 'xray', protocol: 'vless', reality: true, flow: 'xtls-rprx-vision' }, 'xray vless + reality + vision'],
  [{ impl: 'xray', protocol: 'vless', tls: true, flow: 'xtls-rprx-vision' }, 'xray vless + tls + vision'],
  [{ impl: 'sing-box', protocol: 'hysteria2' }, 'sing-box hysteria2'],
  [{ impl: 'sing-box', protocol: 'tuic' }, 'sing-box tuic'],
  [
    { impl: 'sing-box', protocol: 'shadowtls', method: '2022-blake3-aes-128-gcm' },
    'sing-box shadowtls 2022-blake3-aes-128-gcm',
  ],
  [{ impl: 'sing-box', protocol: 'anytls' }, 'sing-box anytls'],
];
const configFolders = () =>
  readdirSync(tmpdir()).filter((name) => /^cipherbench-(xray|sing-box)-/.test(name) && !name.includes('test'));

// `cipherbench COMMAND cases.json ...` on `rows` for 1 s a case, its JSON
// result's cases once it exits 0.
async function runCases(rows, [command, ...args]) {
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify(rows));
  const common = ['--duration', '1', '--no-ceiling', '--json', '--no-archive', ...(await freePortsFlag())];
  const { code, stdout, stderr } = await runCli([command, 'cases.json', ...args, ...common], {
    cwd,
    env: { NO_COLOR: '1' },
  });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout).cases;
}

test('xray and sing-box rows of what only they carry each give a bitrate', { timeout: 180_000 }, async (t) => {
  if (!requirePrograms(t, 'xray', 'sing-box', 'iperf3')) return;
  const foldersBefore = new Set(configFolders());
  const roles = new Map();
  const { result, pids } = await runRecording(
    { ports: await freeRunPorts(), cases: ROWS.map(([row]) => row) },
    (event) => {
      if (event.type === 'process-started') roles.set(event.index, [...(roles.get(event.index) ?? []), event.role]);
    },
  );
  assert.deepEqual(
    result.cases.map((c) => c.label),
    ROWS.map(([, label]) => label),
  );
  for (const caseResult of result.cases) {
    assert.equal(caseResult.status, 'ok', `${caseResult.label}: ${caseResult.reason}`);
    assert.ok(caseResult.receiver.bits_per_second > 0, `${caseResult.label} measured`);
  }
  // REALITY and ShadowTLS start the site they borrow from; the others do not.
  assert.deepEqual(
    ROWS.map((_, index) => roles.get(index).includes('relay-site')),
    [true, false, false, false, true, false],
  );
  // The header names the versions that made these figures, as the programs say them.
  assert.deepEqual(result.environment.peers, { xray: '26.3.27', 'sing-box': '1.14.1' });
  assertAllGone(pids);
  assert.deepEqual(
    configFolders().filter((name) => !foldersBefore.has(name)),
    [],
    'config folders removed',
  );
});

test('run --udp through sing-box Hysteria2 and TUIC: iperf3 -u over QUIC', { timeout: 180_000 }, async (t) => {
  if (!requirePrograms(t, 'sing-box', 'iperf3')) return;
  const cases = await runCases(
    [
      { impl: 'sing-box', protocol: 'hysteria2' },
      { impl: 'sing-box', protocol: 'tuic' },
    ],
    ['run', '--udp', '--rate', '20M'],
  );
  for (const caseResult of cases) {
    assert.equal(caseResult.status, 'ok', caseResult.reason);
    assert.ok(
      caseResult.udp.packets > 0 && caseResult.udp.lost_percent < 50,
      `${caseResult.label}: ${JSON.stringify(caseResult.udp)}: most datagrams crossed`,
    );
  }
});

// The request workload reaches a row through the inbound a case names:
// Xray's socks and http inbounds, sing-box's socks and http, in place of
// the port forward; every request answered. Xray's http inbound, like
// V2Ray 4.34's (docs/requests.md), does not keep a plain proxied request's
// connection alive: about one reset for each answered request.
test('requests through the SOCKS5 and HTTP inbounds of xray and sing-box', { timeout: 180_000 }, async (t) => {
  if (!requirePrograms(t, 'xray', 'sing-box')) return;
  const inbounds = ['socks5', 'http-connect', 'http-proxy'];
  const rows = [
    ...inbounds.map((inbound) => ({ impl: 'xray', protocol: 'vless', tls: true, inbound })),
    ...inbounds.map((inbound) => ({ impl: 'sing-box', protocol: 'trojan', tls: true, inbound })),
  ];
  const cases = await runCases(rows, ['requests', '--engine', 'node', '--repeat', '1', '--warmup', '0']);
  for (const caseResult of cases) {
    const { requests } = caseResult;
    assert.equal(caseResult.status, 'ok', `${caseResult.label}: ${caseResult.reason}`);
    assert.ok(requests.ok > 0, `${caseResult.label}: requests answered`);
    if (caseResult.impl === 'xray' && requests.kind === 'http-proxy') {
      const { reset, ...others } = requests.errors;
      assert.ok(reset >= requests.ok * 0.8, `xray http-proxy: a reset for each request, ${JSON.stringify(requests)}`);
      assert.deepEqual(
        Object.values(others).filter((count) => count > 0),
        [],
      );
      continue;
    }
    assert.deepEqual(
      Object.values(requests.errors).filter((count) => count > 0),
      [],
      `${caseResult.label} ${requests.kind}: no errors`,
    );
  }
});

test('xray and sing-box rows: fields are checked before anything starts', () => {
  const problems = (row) => validateReference(row).map(({ field, message }) => `${field}: ${message}`);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vless', reality: true, flow: 'xtls-rprx-vision' }), []);
  assert.deepEqual(problems({ impl: 'sing-box', protocol: 'trojan', tls: true, transport: 'grpc' }), []);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'hysteria2' }), [
    "protocol: unknown protocol \"hysteria2\": sing-box carries it ({ impl: 'sing-box', protocol: 'hysteria2' }); valid: shadowsocks, vmess, vless, trojan",
  ]);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vles' }), [
    'protocol: unknown protocol "vles" (did you mean "vless"?); valid: shadowsocks, vmess, vless, trojan',
  ]);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vless', flow: 'xtls-rprx-vision' }), [
    'flow: Vision splices TLS inside TLS: give tls: true or reality: true',
  ]);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'trojan', reality: true }), [
    'reality: belongs to vless; trojan has no reality (REALITY authenticates VLESS users)',
  ]);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vless', reality: true, tls: true }), [
    'reality: replaces tls: give one of them',
  ]);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'shadowsocks' }), [
    'method: missing; valid: aes-128-gcm, aes-256-gcm, chacha20-ietf-poly1305, xchacha20-ietf-poly1305, 2022-blake3-aes-128-gcm, 2022-blake3-aes-256-gcm, 2022-blake3-chacha20-poly1305',
  ]);
  assert.deepEqual(problems({ impl: 'sing-box', protocol: 'hysteria2', tls: true }), [
    'tls: hysteria2 always runs its own TLS: give no tls field',
  ]);
  assert.deepEqual(problems({ impl: 'sing-box', protocol: 'anytls', transport: 'ws' }), [
    'transport: anytls has no transport; vmess, vless and trojan do',
  ]);
  assert.deepEqual(problems({ impl: 'sing-box', protocol: 'vless', transport: 'websocket' }), [
    'transport: unknown transport "websocket"; valid: tcp, ws, grpc, httpupgrade, h2',
  ]);
  assert.deepEqual(problems({ impl: 'sing-box', protocol: 'vless', reality: true }), [
    'reality: sing-box takes no field "reality"; valid: impl, label, protocol, method, security, tls, transport, inbound',
  ]);
});

test('a missing xray or sing-box is a skip saying how to build it', async () => {
  const env = { env: { PATH: '/nonexistent' } };
  assert.match(
    (await locatePeer({ impl: 'xray', protocol: 'vless', tls: true }, env)).reason,
    /^not installed: xray not found on PATH; build it with `go install github\.com\/xtls\/xray-core\/main@v1\.260327\.0`/,
  );
  assert.match(
    (await locatePeer({ impl: 'sing-box', protocol: 'tuic' }, env)).reason,
    /^not installed: sing-box not found on PATH; build it with `go install -tags with_quic,with_utls github\.com\/sagernet\/sing-box\/cmd\/sing-box@v1\.14\.1`/,
  );
});
