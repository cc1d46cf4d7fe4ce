// scripts/test.js is `npm test`: both parts run, the exit status is theirs,
// and every failing test is listed again at the very end, where a CI log
// that keeps only its tail shows it. Run here on small suites of real
// test files in a folder of their own (--root).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

const SCRIPT = fileURLToPath(new URL('../scripts/test.js', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'cipherbench-npm-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const PASSING = `import { test } from 'node:test';
test('passes', () => {});
`;
const FAILING = `import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
describe('a relay pair', () => {
  it('carries a stream', () => {});
  describe('under load', () => {
    it('never resets a genuine connection', () => {
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    });
  });
});
test('sums', () => { assert.equal(1 + 1, 3); });
test('waits', { timeout: 50 }, () => new Promise((resolve) => setTimeout(resolve, 2000)));
`;

function suite(name, files) {
  const root = path.join(scratch, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

function npmTest(root, args = []) {
  // A node --test inside a test file would otherwise report to its parent.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, '--root', root, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

test('a failure in the first part is listed again after the serial part, with file, line, suites and error', async () => {
  const root = suite('first-fails', {
    'test/a.test.js': PASSING,
    'test/b.test.js': FAILING,
    'test/serial/c.test.js': PASSING,
  });
  const { code, stdout } = await npmTest(root);
  assert.equal(code, 1);
  const digest = stdout.slice(stdout.lastIndexOf('# 3 failing tests, again:'));
  assert.ok(
    stdout.lastIndexOf('# 3 failing tests, again:') > stdout.lastIndexOf('TAP version 13'),
    'the list comes after both parts',
  );
  assert.equal(
    digest,
    [
      '# 3 failing tests, again:',
      '#   test/b.test.js:6  a relay pair > under load > never resets a genuine connection',
      '#     ECONNRESET: read ECONNRESET',
      '#   test/b.test.js:11  sums',
      '#     ERR_ASSERTION: Expected values to be strictly equal:',
      '#     ',
      '#     2 !== 3',
      '#   test/b.test.js:12  waits (testTimeoutFailure)',
      '#     test timed out after 50ms',
      '',
    ].join('\n'),
  );
});

test('a failure in the serial part alone fails the run and is listed', async () => {
  const root = suite('serial-fails', {
    'test/a.test.js': PASSING,
    'test/serial/c.test.js':
      "import { test } from 'node:test';\ntest('idle', () => { throw new Error('p50 of 80 ms'); });\n",
  });
  const { code, stdout } = await npmTest(root);
  assert.equal(code, 1);
  assert.match(stdout, /# 1 failing test, again:\n# {3}test\/serial\/c\.test\.js:2 {2}idle\n# {5}p50 of 80 ms\n$/);
});

test('a file that fails outside any test fails the run and is named', async () => {
  const root = suite('file-fails', {
    'test/a.test.js':
      "import { test } from 'node:test';\ntest('fine', () => {});\nthrow new Error('broken as it loads');\n",
    'test/serial/c.test.js': PASSING,
  });
  const { code, stdout } = await npmTest(root);
  assert.equal(code, 1);
  assert.match(
    stdout,
    /# 1 failing test, again:\n# {3}test\/a\.test\.js {2}\(the file itself, outside its tests\)\n# {5}its process exited with code \d+: its output is above\n$/,
  );
});

test('all passing: exit 0 and no list', async () => {
  const root = suite('passes', { 'test/a.test.js': PASSING, 'test/serial/c.test.js': PASSING });
  const { code, stdout } = await npmTest(root);
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /failing test/);
  assert.equal(stdout.match(/^# pass 1$/gm).length, 2, 'both parts ran');
});

// test/unit/ is its own part, first, under test/support/pure.js: a test
// there that starts a process or opens a socket fails, saying why;
// `--unit` (npm run test:unit) runs that part alone.
const SPAWNS = `import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
test('asks git', () => { execFileSync('git', ['--version']); });
`;
const LISTENS = `import { test } from 'node:test';
import { createServer } from 'node:net';
test('listens', () => new Promise((resolve, reject) => { const server = createServer(); server.on('error', reject); server.listen(0, () => server.close(resolve)); }));
`;

test('test/unit/ runs first, and a test there that starts a process or listens fails, naming the rule', async () => {
  const root = suite('unit-impure', {
    'test/unit/a.test.js': PASSING,
    'test/unit/spawns.test.js': SPAWNS,
    'test/unit/listens.test.js': LISTENS,
    'test/b.test.js': SPAWNS,
    'test/serial/c.test.js': LISTENS,
  });
  const { code, stdout } = await npmTest(root);
  assert.equal(code, 1);
  const digest = stdout.slice(stdout.lastIndexOf('# 2 failing tests, again:'));
  assert.match(
    digest,
    /^# 2 failing tests, again:\n# {3}test\/unit\/listens\.test\.js:3 {2}listens\n# {5}net\.Server\.listen: a test of test\/unit\/ starts no process and opens no socket; move this test out of test\/unit\/\n# {3}test\/unit\/spawns\.test\.js:3 {2}asks git\n# {5}child_process\.execFileSync: a test of test\/unit\/ starts no process and opens no socket/,
  );
  assert.equal(stdout.match(/^# pass \d+$/gm).length, 3, 'all three parts ran');
  assert.ok(stdout.indexOf('# pass 1\n') < stdout.indexOf('ok 1 - asks git'), 'test/unit/ first');
});

test('--unit runs test/unit/ alone', async () => {
  const root = suite('unit-alone', {
    'test/unit/a.test.js': PASSING,
    'test/b.test.js': FAILING,
    'test/serial/c.test.js': FAILING,
  });
  const { code, stdout } = await npmTest(root, ['--unit']);
  assert.equal(code, 0, stdout);
  assert.deepEqual(stdout.match(/^# pass \d+$/gm), ['# pass 1']);
});

// npm run lint runs first when the project has one: a finding fails the
// run and is named at the very end, after the tests, which still run.
const LINT_FAILS = `${JSON.stringify({ type: 'module', scripts: { lint: 'node -e "console.log(\'lint: 1 problem\'); process.exit(1)"' } })}\n`;

test('npm run lint runs before the tests; its failure fails the run and is named last, and the tests still run', async () => {
  const root = suite('lint-fails', {
    'package.json': LINT_FAILS,
    'test/unit/a.test.js': PASSING,
    'test/b.test.js': PASSING,
    'test/serial/c.test.js': PASSING,
  });
  const { code, stdout } = await npmTest(root);
  assert.equal(code, 1);
  assert.ok(stdout.indexOf('lint: 1 problem') < stdout.indexOf('TAP version 13'), 'the lint first');
  assert.equal(stdout.match(/^# pass 1$/gm).length, 3, 'every part ran');
  assert.match(stdout, /\n# npm run lint failed: its findings are at the top, before the tests\n$/);
});

test('a passing lint passes; --unit runs no lint', async () => {
  const passes = suite('lint-passes', {
    'package.json': `${JSON.stringify({ type: 'module', scripts: { lint: 'node -e "console.log(\'lint: clean\')"' } })}\n`,
    'test/a.test.js': PASSING,
  });
  const clean = await npmTest(passes);
  assert.equal(clean.code, 0, clean.stdout);
  assert.match(clean.stdout, /lint: clean/);
  const unitOnly = await npmTest(suite('lint-unit', { 'package.json': LINT_FAILS, 'test/unit/a.test.js': PASSING }), [
    '--unit',
  ]);
  assert.equal(unitOnly.code, 0, unitOnly.stdout);
  assert.doesNotMatch(unitOnly.stdout, /lint: 1 problem|npm run lint/);
});
