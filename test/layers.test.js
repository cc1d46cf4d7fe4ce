import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startRelayServer, stopAll } from './support/processes.js';

// The rooms of lib/ and what each may import besides itself (CONTRIBUTING.md,
// "How lib/ is built"). The wire (crypto, wire, presets, chain) knows no socket;
// the relay no process; nothing below the runner knows the runner, the
// reports or the CLI; the reports only read results. A new arrow here is a
// design choice to make on purpose, not an import that slipped in.
const MAY_IMPORT = {
  'errors.js': [],
  // The result, event, workload, preset and peer shapes as types (JSDoc
  // imports only): beside them all.
  'contracts.js': [],
  'result.js': ['errors.js', 'contracts.js'],
  statistics: ['result.js'],
  crypto: ['errors.js'],
  'plain-object.js': [],
  // 'did you mean ...?' for every name a person types: commands, presets, methods.
  'nearest-name.js': [],
  wire: ['crypto'],
  // A preset name a catalogue is asked for and does not have is refused naming the nearest.
  presets: ['wire', 'crypto', 'contracts.js', 'errors.js', 'nearest-name.js'],
  chain: ['presets', 'plain-object.js', 'nearest-name.js'],
  relay: ['chain', 'wire', 'crypto'],
  process: ['errors.js'],
  traffic: ['process', 'relay', 'errors.js', 'statistics'],
  // Above the relay, a room that reads chains holds the whole catalogue
  // (presets/index.js) and hands it to lib/chain; a relay is handed its own.
  peers: [
    'process',
    'relay',
    'chain',
    'presets',
    'crypto',
    'errors.js',
    'plain-object.js',
    'nearest-name.js',
    'contracts.js',
  ],
  // What a cipher alone can carry, with no socket: used by a run and by `ciphers`.
  ceiling: ['chain', 'presets', 'crypto', 'process', 'errors.js', 'statistics'],
  // CPU profiles, perf samples and system call counts of a run's relays.
  profile: ['process', 'errors.js'],
  // What a run measures (bulk, UDP, requests, latency): plan, measure, summarise.
  workload: ['traffic', 'peers', 'process', 'chain', 'presets', 'errors.js', 'result.js', 'statistics', 'contracts.js'],
  runner: [
    'workload',
    'ceiling',
    'profile',
    'peers',
    'traffic',
    'process',
    'chain',
    'presets',
    'crypto',
    'errors.js',
    'result.js',
    'statistics',
    'contracts.js',
  ],
  report: ['chain', 'errors.js', 'result.js', 'statistics', 'contracts.js'],
  cli: [
    'report',
    'runner',
    'ceiling',
    'profile',
    'workload',
    'statistics',
    'peers',
    'traffic',
    'process',
    'relay',
    'chain',
    'presets',
    'crypto',
    'errors.js',
    'result.js',
    'nearest-name.js',
  ],
  'index.js': ['runner', 'report', 'result.js'],
};

const LIB = fileURLToPath(new URL('../lib/', import.meta.url));
const roomOf = (file) => file.split(path.sep)[0];

function imports() {
  const found = [];
  for (const file of readdirSync(LIB, { recursive: true })) {
    if (!/\.(c|m)?js$/.test(file)) continue;
    const text = readFileSync(path.join(LIB, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:\bfrom|\bimport\s*\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.relative(LIB, path.resolve(LIB, path.dirname(file), specifier));
      found.push({ file, from: roomOf(file), to: roomOf(target) });
    }
  }
  return found;
}

test('every room of lib/ is listed, and imports only the rooms below it', () => {
  const rooms = new Set(readdirSync(LIB).filter((name) => !name.startsWith('.')));
  assert.deepEqual(
    [...rooms].sort(),
    Object.keys(MAY_IMPORT).sort(),
    'a new room of lib/ needs its place in MAY_IMPORT',
  );
  const found = imports();
  assert.ok(found.length > 100, `only ${found.length} imports read: the pattern no longer matches lib/'s imports`);
  const upward = found
    .filter(({ from, to }) => from !== to && !MAY_IMPORT[from].includes(to))
    .map(({ file, to }) => `${file} imports ${to}`);
  assert.deepEqual(upward, []);
});

// Every relay is `cipherbench relay ...`, started through lib/cli/relay-main.js,
// and the ceiling child measures ciphers: whatever they load at start sits
// on their heap for the whole run, and a few MB more there cost the relay
// pair a measurable share of its CPU in garbage collection
// (docs/performance.md). The process contract and the environment probe
// are loaded by the commands that use them, when they run.
const HEAVY = ['execa', 'systeminformation'];

function staticallyLoaded(entry) {
  const seen = new Set();
  const packages = new Set();
  const pending = [path.join(LIB, entry)];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/^import\s[^;]*?\bfrom\s*['"]([^'"]+)['"]/gms)) {
      if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), specifier));
      else packages.add(specifier);
    }
  }
  return { files: seen.size, packages: [...packages], seen };
}

for (const entry of ['cli/main.js', 'ceiling/ceiling-child.js']) {
  test(`lib/${entry} loads neither ${HEAVY.join(' nor ')} at start`, () => {
    const { files, packages } = staticallyLoaded(entry);
    assert.ok(files > 3, `only ${files} files reached: the pattern no longer matches lib/'s imports`);
    assert.ok(
      packages.some((name) => name.startsWith('node:')),
      'no node: import reached: the pattern no longer matches',
    );
    assert.deepEqual(
      packages.filter((name) => HEAVY.includes(name)),
      [],
    );
  });
}

// A relay process loads the relay and its chain's presets, nothing of the
// runner, the reports, the peers or the traffic engines, and no other
// preset: with all of the command line loaded, the same relay code carried
// about a third less on Node 24, and with every preset loaded about 6% less.
// Read from the files a real relay server loads (test/support/loading-hook.js),
// as its presets are imported when its command line is read.
test('a relay server loads the relay and its own presets, nothing else of lib/ and no heavy package', async (t) => {
  const log = path.join(mkdtempSync(path.join(tmpdir(), 'cipherbench-loads-')), 'modules');
  t.after(stopAll);
  const relay = await startRelayServer({
    key: 'k',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }],
    nodeFlags: ['--import', fileURLToPath(new URL('./support/loading-hook.js', import.meta.url))],
    env: { ...process.env, CIPHERBENCH_TEST_MODULE_LOG: log },
  });
  relay.kill('SIGTERM');
  await relay.exited;
  const files = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((url) => fileURLToPath(url));
  const ours = files.filter((file) => file.startsWith(LIB)).map((file) => path.relative(LIB, file));
  assert.ok(ours.includes(path.join('relay', 'server.js')), `the relay itself is loaded: ${ours.join(', ')}`);
  const rooms = new Set(ours.map((file) => file.split(path.sep)[0]));
  assert.deepEqual(
    ['runner', 'report', 'peers', 'traffic'].filter((room) => rooms.has(room)),
    [],
  );
  assert.deepEqual(
    files.filter((file) => HEAVY.some((name) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`))),
    [],
  );
  // Of the catalogue's modules (presets/registry.js), the chain's two.
  const catalogue = readFileSync(path.join(LIB, 'presets', 'registry.js'), 'utf8');
  const presetModules = [...catalogue.matchAll(/import\('\.\/([^']+)'\)/g)].map(([, file]) =>
    path.join('presets', file),
  );
  assert.ok(presetModules.length >= 15, 'the catalogue pattern no longer matches registry.js');
  assert.deepEqual([...new Set(presetModules.filter((file) => ours.includes(file)))].sort(), [
    path.join('presets', 'ss-aead-cipher.js'),
    path.join('presets', 'ss-base.js'),
  ]);
});
