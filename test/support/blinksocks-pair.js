import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess } from './processes.js';

// blinksocks 3.3.0 as a wire reference for one preset chain: its server and
// its client (a tcp:// tunnel to one target, like our relay client) started
// from a config file each, and its preset classes loaded in-process for
// known-answer tests. Where .ci/run installs it unless CIPHERBENCH_BLINKSOCKS
// names another folder.
const FOLDER = process.env.CIPHERBENCH_BLINKSOCKS ?? fileURLToPath(new URL('../../.ci/peers', import.meta.url));
const requireThere = createRequire(path.join(path.resolve(FOLDER), 'noop.js'));

function locate() {
  try {
    const manifest = requireThere.resolve('blinksocks/package.json');
    return { start: path.join(path.dirname(manifest), 'bin', 'start.js') };
  } catch {
    return {
      reason: `blinksocks cannot be resolved from ${FOLDER} (npm install --prefix .ci/peers --no-save blinksocks@3.3.0)`,
    };
  }
}

// A test that needs blinksocks fails in CI, where .ci/run installs it, and
// skips elsewhere, saying why.
export function requireBlinksocks(t) {
  const { reason } = locate();
  if (!reason) return true;
  if (process.env.CI === 'true') throw new Error(reason);
  t.skip(reason);
  return false;
}

// One of blinksocks' preset classes (e.g. 'obfs-tls1.2-ticket'), as its
// relay would build it for one connection on one side.
export function blinksocksPreset(name, { role, params = {} }) {
  const Preset = requireThere(`blinksocks/lib/presets/${name}`).default;
  Preset.onCheckParams(params);
  const store = Preset.onCache(params, {});
  const preset = new Preset({ config: { is_client: role === 'client', is_server: role === 'server' }, params });
  preset.getStore = () => store;
  preset.onInit(params);
  return preset;
}

// Logging at 'info' is what prints the line that says it listens.
function startWithConfig(config, role) {
  const folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-blinksocks-pair-'));
  const file = path.join(folder, `${role}.json`);
  writeFileSync(
    file,
    JSON.stringify({ ...config, log_level: 'info', log_path: path.join(folder, `${role}.log`), timeout: 60 }),
  );
  const started = startProcess(process.execPath, [locate().start, '-c', file], {
    ready: new RegExp(`blinksocks ${role} is running at tcp://`),
  });
  started
    .then(
      (child) => child.exited,
      () => {},
    )
    .finally(() => rmSync(folder, { recursive: true, force: true }));
  return started;
}

export const startBlinksocksServer = ({ port, key, presets }) =>
  startWithConfig({ service: `tcp://127.0.0.1:${port}`, key, presets }, 'server');

export const startBlinksocksClient = ({ port, serverPort, forwardPort, key, presets }) =>
  startWithConfig(
    {
      service: `tcp://127.0.0.1:${port}?forward=127.0.0.1:${forwardPort}`,
      server: { service: `tcp://127.0.0.1:${serverPort}`, key, presets },
    },
    'client',
  );
