import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEGACY_FLAG } from '../../lib/crypto/legacy-provider.js';
import { freePort } from './ports.js';
import { startProcess } from './processes.js';

// blinksocks 3.3.0 as a peer in tests: a server or a tunnel client started
// from a config, on an ephemeral port, from .ci/peers (where .ci/run
// installs it). A test that needs it fails under CI=true and skips with the
// reason elsewhere, as programs.js does for programs.
const PEERS = fileURLToPath(new URL('../../.ci/peers/', import.meta.url));
const ANY_NODE = fileURLToPath(new URL('../../lib/peers/blinksocks-any-node.cjs', import.meta.url));

export function blinksocksPath() {
  try {
    return createRequire(path.join(PEERS, 'noop.js')).resolve('blinksocks/bin/cli.js');
  } catch {
    return null;
  }
}

export function requireBlinksocks(t) {
  if (blinksocksPath()) return true;
  const message = 'needs blinksocks 3.3.0 in .ci/peers (npm install --prefix .ci/peers blinksocks@3.3.0)';
  if (process.env.CI === 'true') throw new Error(message);
  t.skip(message);
  return false;
}

// In-process access to blinksocks' own modules (its preset classes, its
// libsodium), for known-answer tests; null when it is not installed.
export function blinksocksRequire() {
  const cli = blinksocksPath();
  return cli ? createRequire(cli) : null;
}

// rc4 and ShadowsocksR's auth_chain (RC4 inside) need the legacy provider.
const needsLegacy = (presets) =>
  presets.some(
    (preset) => String(preset.params?.method ?? '').startsWith('rc4') || preset.name.startsWith('ssr-auth-chain'),
  );

const folders = [];
export function removeBlinksocksFolders() {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

async function start(role, config, presets) {
  const folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-test-blinksocks-'));
  folders.push(folder);
  const file = path.join(folder, `${role}.json`);
  writeFileSync(
    file,
    JSON.stringify({ ...config, log_level: 'info', log_path: path.join(folder, `${role}.log`), timeout: 60 }),
  );
  const args = [...(needsLegacy(presets) ? [LEGACY_FLAG] : []), '--require', ANY_NODE, blinksocksPath(), '-c', file];
  return startProcess(process.execPath, args, {
    ready: new RegExp(`blinksocks ${role} is running at \\w+://`),
    timeoutMs: 20_000,
  });
}

// The service a server listens on, or a client reaches its server by:
// `transport` is blinksocks' URL scheme (tcp, ws, wss, tls), `path` the
// WebSocket path, `tls` the { cert, key } files wss and tls need (a client
// trusts `cert`, self-signed). `mux: true` multiplexes the client's
// connections over its tunnel connections (blinksocks' own format), at most
// `muxConcurrency` of them (its mux_concurrency, default 10).
const serviceOf = (port, { transport = 'tcp', path: pathname = '' }) =>
  `${transport}://127.0.0.1:${port}${transport.startsWith('ws') ? pathname : ''}`;
const tlsFields = (role, { transport = 'tcp', tls }) => {
  if (!['wss', 'tls'].includes(transport)) return {};
  return role === 'server'
    ? { tls_cert: tls.cert, tls_key: tls.key }
    : { tls_cert: tls.cert, tls_cert_self_signed: true };
};

// Resolves with { child, port } once blinksocks listens.
export async function startBlinksocksServer({ key, presets, mux, ...service }) {
  const port = await freePort();
  const config = { service: serviceOf(port, service), key, presets, mux, ...tlsFields('server', service) };
  const child = await start('server', config, presets);
  return { child, port };
}

export async function startBlinksocksClient({
  key,
  presets,
  serverPort,
  forwardPort,
  mux,
  muxConcurrency,
  ...service
}) {
  const port = await freePort();
  const server = {
    service: serviceOf(serverPort, service),
    key,
    presets,
    mux,
    ...(muxConcurrency ? { mux_concurrency: muxConcurrency } : {}),
    ...tlsFields('client', service),
  };
  const child = await start(
    'client',
    { service: `tcp://127.0.0.1:${port}?forward=127.0.0.1:${forwardPort}`, server },
    presets,
  );
  return { child, port };
}
