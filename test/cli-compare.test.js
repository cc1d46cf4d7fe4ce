import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { copy, FIXTURE, setRuns } from './support/result-runs.js';

// The compare command itself: its exit codes and its one-line refusals.
// The comparison it prints is test/unit/compare.test.js's.
const BIN = new URL('../bin/cipherbench.js', import.meta.url).pathname;

test('cipherbench compare exits 0, 1 on a regression, 0 when it cannot tell, and 2 on a bad file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cipherbench-compare-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const oldResult = copy();
  setRuns(oldResult.cases[0], [3.0e9, 2.9e9, 3.1e9]);
  const onceBefore = copy();
  const onceAfter = copy();
  setRuns(onceBefore.cases[0], [1.52e9]);
  setRuns(onceAfter.cases[0], [1.02e9]);
  const files = {
    same: FIXTURE.pathname,
    faster: join(dir, 'faster.json'),
    onceBefore: join(dir, 'once-before.json'),
    onceAfter: join(dir, 'once-after.json'),
    notJson: join(dir, 'broken.json'),
    notResult: join(dir, 'other.json'),
  };
  await writeFile(files.faster, JSON.stringify(oldResult));
  await writeFile(files.onceBefore, JSON.stringify(onceBefore));
  await writeFile(files.onceAfter, JSON.stringify(onceAfter));
  await writeFile(files.notJson, '{"cases": [');
  await writeFile(files.notResult, '{"name": "cipherbench"}');
  const compare = (...args) => execa('node', [BIN, 'compare', ...args], { reject: false, env: { NO_COLOR: '1' } });

  const same = await compare(files.same, files.same);
  assert.equal(same.exitCode, 0, same.stderr);
  assert.match(same.stdout, /^Cannot tell: 1 of 6 cases/m);

  const regressed = await compare(files.faster, files.same);
  assert.equal(regressed.exitCode, 1, regressed.stderr);
  assert.match(regressed.stdout, /aes-256-gcm\).*-18\.3% \[-22\.3%, -13\.1%\]\s+0\.050\s+slower$/m);
  assert.equal((await compare(files.faster, files.same, '--threshold', '20')).exitCode, 0);

  const once = await compare(files.onceBefore, files.onceAfter);
  assert.equal(once.exitCode, 0, once.stdout);
  assert.match(once.stdout, /-32\.9%\s+cannot tell \(1 vs 1 run\)$/m);
  assert.equal((await compare(files.onceBefore, files.onceAfter, '--strict')).exitCode, 1);

  const json = await compare(files.faster, files.same, '--json');
  assert.equal(json.exitCode, 1);
  assert.equal(JSON.parse(json.stdout).regressed, true);

  for (const [args, message] of [
    [[join(dir, 'missing.json'), files.same], /^cipherbench: cannot read .*missing\.json: no such file$/],
    [[files.notJson, files.same], /^cipherbench: .*broken\.json is not JSON .*reports\/YYYY-MM-DD\.json$/],
    [[files.same, files.notResult], /^cipherbench: .*other\.json is not a cipherbench result/],
    [[files.same, files.same, '--threshold', 'five'], /^cipherbench: --threshold must be a percentage of 0 or more/],
  ]) {
    const bad = await compare(...args);
    assert.equal(bad.exitCode, 2, `${args.join(' ')}: ${bad.stderr}`);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr.trimEnd(), message);
    assert.equal(bad.stderr.trimEnd().split('\n').length, 1);
  }
});
