import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { requirePrograms } from './support/programs.js';

const run = promisify(execFile);
const PROJECT = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8'));

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cipherbench-pack-')));
after(() => rmSync(root, { recursive: true, force: true }));

// What a person gets from npm: the tarball npm pack makes, run by npx in an
// empty folder, with its dependencies from the registry and its bundled
// cases.js. Needs the network only for the npm registry.
test('npm pack gives a package that npx runs in an empty folder', { timeout: 120_000 }, async (t) => {
  if (!requirePrograms(t, 'iperf3', 'npm', 'npx')) return;
  const packed = path.join(root, 'packed');
  const empty = path.join(root, 'empty');
  await run('mkdir', [packed, empty]);

  const { stdout: packJson } = await run('npm', ['pack', '--json', '--pack-destination', packed], { cwd: PROJECT });
  const [{ filename, files }] = JSON.parse(packJson);
  assert.equal(filename, `cipherbench-${version}.tgz`);
  const paths = files.map((file) => file.path);
  assert.ok(paths.includes('cases.js') && paths.includes('bin/cipherbench.js') && paths.includes('lib/index.js'), paths.join(' '));
  const stray = paths.filter((file) => !/^(bin|lib)\/|^(cases\.js|package\.json|README\.md|LICENSE)$/.test(file));
  assert.deepEqual(stray, [], 'no test, dev or stray files in the package');

  const { stdout } = await run('npx', [
    '--yes', `--package=${path.join(packed, filename)}`, 'cipherbench',
    'run', '--duration', '1', '--filter', '14', '--no-archive', '--ports', '25081,25082,25083',
  ], { cwd: empty, timeout: 110_000 });
  assert.match(stdout, /\(ranking\):\n\n 1: Test Case 14, Bitrate=\[/);
  assert.deepEqual(readdirSync(empty), [], 'npx left the folder as it was');
});
