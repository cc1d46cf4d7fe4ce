import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { freePortsFlag } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

const run = promisify(execFile);
const PROJECT = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8'));

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cipherbench-pack-')));
after(() => rmSync(root, { recursive: true, force: true }));

// npm never asks the registry in these tests: --offline makes any request it
// would make fail at once (ENOTCACHED) instead of waiting on a network that
// CI's test namespace does not have.
const npm = (args, options) =>
  run('npm', [...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { timeout: 60_000, ...options });

let packed = null;
async function pack() {
  if (packed) return packed;
  const destination = path.join(root, 'packed');
  mkdirSync(destination);
  const { stdout } = await npm(['pack', '--json', '--pack-destination', destination], { cwd: PROJECT });
  const [{ filename, files }] = JSON.parse(stdout);
  packed = {
    tarball: path.join(destination, filename),
    filename,
    paths: files.map((file) => file.path),
    modes: new Map(files.map((file) => [file.path, file.mode])),
  };
  return packed;
}

test('the package is ready to publish: bin, engines, license, a prepublishOnly check, no address nobody has made', () => {
  assert.equal(manifest.bin.cipherbench, 'bin/cipherbench.js');
  assert.match(readFileSync(path.join(PROJECT, manifest.bin.cipherbench), 'utf8'), /^#!\/usr\/bin\/env node\n/);
  assert.match(manifest.engines.node, /^>=20\./);
  assert.equal(manifest.license, 'MIT');
  assert.match(readFileSync(path.join(PROJECT, 'LICENSE'), 'utf8'), /^MIT License\n/);
  // No public repository exists yet: a repository, homepage or bugs field
  // would send npm's page and `npm bugs` to an address that answers 404.
  for (const field of ['repository', 'homepage', 'bugs'])
    assert.equal(manifest[field], undefined, `package.json names no ${field}`);
  assert.match(manifest.scripts.prepublishOnly, /test\/pack\.test\.js/);
  assert.equal(manifest.private, undefined, 'a private package cannot be published');
});

test('npm pack: the code, the bundled cases, the docs the README links, and nothing else', async (t) => {
  if (!requirePrograms(t, 'npm')) return;
  const { filename, paths } = await pack();
  assert.equal(filename, `cipherbench-${manifest.version}.tgz`);
  for (const needed of [
    'bin/cipherbench.js',
    'lib/index.js',
    'lib/cli/main.js',
    'cases.js',
    'README.md',
    'LICENSE',
    'package.json',
    'docs/statistics.md',
  ]) {
    assert.ok(paths.includes(needed), `${needed} in the package`);
  }
  const stray = paths.filter(
    (file) => !/^(bin|lib)\/|^docs\/[^/]+\.md$|^(cases\.js|package\.json|README\.md|LICENSE)$/.test(file),
  );
  assert.deepEqual(stray, [], 'no tests, reports, figures, CI or benchmark files in the package');
  // Every module the CLI can import ships: each lib/ file in git is packed.
  const { stdout } = await run('git', ['ls-files', 'lib', 'bin'], { cwd: PROJECT });
  for (const file of stdout.trim().split('\n')) assert.ok(paths.includes(file), `${file} in the package`);
});

// npm makes a bin executable as it links it, but a clone's checkout keeps
// git's mode, and the package keeps the checkout's.
test('bin/cipherbench.js is executable in git and in the package', async (t) => {
  if (!requirePrograms(t, 'npm', 'git')) return;
  const { stdout } = await run('git', ['ls-files', '--stage', manifest.bin.cipherbench], { cwd: PROJECT });
  assert.match(stdout, /^100755 /, 'git update-index --chmod=+x bin/cipherbench.js');
  const { modes } = await pack();
  assert.equal(modes.get(manifest.bin.cipherbench) & 0o111, 0o111, `mode ${modes.get(manifest.bin.cipherbench)}`);
});

// `npx /path/to/cipherbench-0.1.0.tgz` runs the tarball itself as the
// command (npx runs a path that names a file): Permission denied, exit 126.
// The tarball goes after --package, and the command is cipherbench.
test('README.md and CONTRIBUTING.md run a packed tarball as npx --package TARBALL cipherbench', () => {
  // Every npx command naming a tarball, but the one CONTRIBUTING.md warns of.
  const said = (file) =>
    readFileSync(path.join(PROJECT, file), 'utf8').match(
      /npx (?![^`\n]*` runs the tarball itself)[^`\n]*\.tgz[^`\n]*/g,
    ) ?? [];
  const readme = said('README.md');
  assert.equal(readme.length, 1, `the README says it once: ${JSON.stringify(readme)}`);
  for (const command of [...readme, ...said('CONTRIBUTING.md')]) {
    assert.match(command, /^npx --package \S+\/cipherbench-\d+\.\d+\.\d+\.tgz cipherbench( |$)/, command);
  }
});

// What `npx cipherbench` does once the package is on the registry: install
// the tarball and its dependencies, then run its bin, here in a folder with
// a cases.js of its own. The dependencies come from npm's cache (filled by
// `npm ci` of this project, as CI and a developer have run it), never from
// the network: the folder's lockfile names the same versions and integrity
// hashes as this project's, so npm needs no registry metadata. Run it under
// `unshare -n` to prove no request goes out.
test(
  'the packed tarball installs offline into an empty folder and npx cipherbench --smoke runs its cases.js',
  { timeout: 180_000 },
  async (t) => {
    if (!requirePrograms(t, 'npm', 'npx')) return;
    const { tarball, filename } = await pack();
    const folder = path.join(root, 'user');
    mkdirSync(folder);
    writeFileSync(
      path.join(folder, 'package.json'),
      `${JSON.stringify({ name: 'first-hour', private: true, dependencies: { cipherbench: `file:${filename}` } }, null, 2)}\n`,
    );
    writeFileSync(
      path.join(folder, 'package-lock.json'),
      `${JSON.stringify(userLockfile(tarball, filename), null, 2)}\n`,
    );
    writeFileSync(path.join(folder, filename), readFileSync(tarball));
    writeFileSync(
      path.join(folder, 'cases.js'),
      "export default [[{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }]];\n",
    );

    await npm(['ci'], { cwd: folder });
    const { stdout, stderr } = await run(
      'npx',
      ['--offline', 'cipherbench', '--smoke', '--no-archive', '--no-ceiling', ...(await freePortsFlag())],
      { cwd: folder, timeout: 120_000 },
    );
    assert.match(
      stdout,
      new RegExp(`^cases +${escapeRegExp(path.join(folder, 'cases.js'))}$`, 'm'),
      "the folder's own cases.js ran",
    );
    assert.match(
      stdout,
      /\(ranking\):\n\n(DISTURBED: .+\n\n)? 1: Case 0, Bitrate=\[[^\]]+\], ss-base \+ ss-aead-cipher\(chacha20-ietf-poly1305\)\n/,
      stderr,
    );
    assert.match(stdout, new RegExp(`^version +${escapeRegExp(manifest.version)}$`, 'm'));
    assert.deepEqual(
      readdirSync(folder).sort(),
      ['cases.js', filename, 'node_modules', 'package-lock.json', 'package.json'].sort(),
      'no report archived with --no-archive',
    );
  },
);

// The user folder's lockfile: cipherbench from the tarball, and this
// project's own production dependencies at the versions and hashes it was
// tested with (npm resolves a locked package by its integrity from the
// cache).
function userLockfile(tarball, filename) {
  const lock = JSON.parse(readFileSync(path.join(PROJECT, 'package-lock.json'), 'utf8'));
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const packages = {
    '': { name: 'first-hour', dependencies: { cipherbench: `file:${filename}` } },
    'node_modules/cipherbench': {
      version: manifest.version,
      resolved: `file:${filename}`,
      integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (location !== '' && !entry.dev) packages[location] = entry;
  }
  return { name: 'first-hour', lockfileVersion: 3, requires: true, packages };
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
