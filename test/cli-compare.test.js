import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { copy, FIXTURE, setRuns } from './support/result-runs.js';

// The compare command itself: its exit codes and its one-line refusals.
// The comparison it prints is test/unit/report-compare.test.js's.
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
    [[files.notJson, files.same], /^cipherbench: .*broken\.json is not JSON .*reports\/YYYY-MM-DD-HHMMSSZ\.json$/],
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

const SMOKE_NEW = JSON.parse(await readFile(new URL('./fixtures/compare/smoke-2.json', import.meta.url), 'utf8'));
const REQUESTS = new URL('./fixtures/compare/requests-smoke.json', import.meta.url).pathname;

test('compare refuses runs of different workloads, durations or directions with one line and exit 2', async () => {
  const compare = (...args) => execa('node', [BIN, 'compare', ...args], { reject: false, env: { NO_COLOR: '1' } });
  const smoke = new URL('./fixtures/compare/smoke-1.json', import.meta.url).pathname;
  const tls = new URL('../docs/figures/tls.json', import.meta.url).pathname;
  const udp = new URL('../docs/figures/udp-50M-v2ray.json', import.meta.url).pathname;
  const dir = await mkdtemp(join(tmpdir(), 'cipherbench-compare-'));
  const reverse = join(dir, 'reverse.json');
  const reversed = structuredClone(SMOKE_NEW);
  reversed.options.reverse = true;
  for (const caseResult of reversed.cases) caseResult.direction = 'reverse';
  await writeFile(reverse, JSON.stringify(reversed));
  try {
    for (const [args, message] of [
      [
        [smoke, REQUESTS],
        /^cipherbench: cannot compare: the old run measured TCP bulk at full speed, 1 stream, 1 s a run, the new one requests, 20 clients, 2-byte responses, kept-alive connections, 1 s a run; compare two runs of one workload$/,
      ],
      [
        [udp, tls],
        /^cipherbench: cannot compare: the old run measured UDP at 50\.0 Mbits\/sec offered, 1200-byte datagrams, 3 s a run, the new one TCP bulk at full speed, 1 stream, 3 s a run;/,
      ],
      [
        [smoke, tls],
        /^cipherbench: cannot compare: the old run measured TCP bulk at full speed, 1 stream, 1 s a run, the new one TCP bulk at full speed, 1 stream, 3 s a run;/,
      ],
      [
        [smoke, reverse],
        /^cipherbench: cannot compare: the old run measured the forward direction, the new one reverse; compare two runs of one direction/,
      ],
    ]) {
      const refused = await compare(...args);
      assert.equal(refused.exitCode, 2, refused.stdout);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, message);
      assert.equal(refused.stderr.trimEnd().split('\n').length, 1);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // Two request runs compare on requests per second.
  const requests = await compare(REQUESTS, REQUESTS);
  assert.equal(requests.exitCode, 0, requests.stderr);
  assert.match(requests.stdout, /^Median requests per second, old run .*: requests, 20 clients/);
  assert.match(
    requests.stdout,
    /aes-128-ctr\) +21410 req\/s \(20547\.\.26659\) +21410 req\/s \(20547\.\.26659\) +0\.0% \[.*within noise$/m,
  );
});
