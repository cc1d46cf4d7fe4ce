import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { compareResults, formatComparison } from '../lib/report/comparison.js';

const FIXTURE = new URL('./fixtures/result-v2.json', import.meta.url);
const BIN = new URL('../bin/cipherbench.js', import.meta.url).pathname;
const ANSI = /\x1b\[/;

const fixture = JSON.parse(await readFile(FIXTURE, 'utf8'));
const copy = () => structuredClone(fixture);

// The same receiver summary with other numbers: median, min and max are
// all a reader of the comparison looks at.
function setReceiver(caseResult, median, min, max) {
  caseResult.receiver = { ...caseResult.receiver, bits_per_second: median, min, max };
}
const rowFor = (comparison, index, direction = 'forward') =>
  comparison.rows.find((row) => row.index === index && row.direction === direction);

test('the same file against itself: nothing moved, nothing regressed', () => {
  const comparison = compareResults(fixture, fixture);
  assert.equal(comparison.regressed, false);
  assert.equal(comparison.threshold, 5);
  assert.deepEqual(comparison.warnings, []);
  assert.deepEqual(comparison.rows.map((row) => [row.index, row.direction, row.verdict, row.deltaPercent]), [
    [0, 'forward', 'within-threshold', 0],
    [0, 'reverse', 'within-threshold', 0],
    [1, 'forward', 'within-threshold', 0],
    [1, 'reverse', 'within-threshold', 0],
    [2, 'forward', 'not-measured', null],
    [2, 'reverse', 'not-measured', null],
  ]);
  assert.deepEqual(rowFor(comparison, 0).new, { median: 2.45e9, min: 2.41e9, max: 2.52e9, cv: fixture.cases[0].receiver.cv, runs: 3 });
  // Two ok runs of three for the reverse chacha case.
  assert.equal(rowFor(comparison, 1, 'reverse').new.runs, 2);
});

test('a synthetic regression: 20 % slower with every new run below every old run', () => {
  const oldResult = copy();
  setReceiver(oldResult.cases[0], 3.0e9, 2.9e9, 3.1e9);
  const comparison = compareResults(oldResult, fixture);
  const row = rowFor(comparison, 0);
  assert.equal(row.verdict, 'slower');
  assert.equal(row.regressed, true);
  assert.ok(Math.abs(row.deltaPercent - ((2.45 - 3.0) / 3.0) * 100) < 1e-9);
  assert.equal(comparison.regressed, true);
  // The same drop under a threshold above it is no regression.
  assert.equal(rowFor(compareResults(oldResult, fixture, { threshold: 20 }), 0).verdict, 'within-threshold');
  assert.equal(compareResults(oldResult, fixture, { threshold: 20 }).regressed, false);
});

test('a drop beyond the threshold whose ranges overlap is within the spread, not a regression', () => {
  // New chacha: median 1.35, runs 1.10..1.62 (unstable). Old: 1.50, 1.40..1.60.
  const oldResult = copy();
  setReceiver(oldResult.cases[2], 1.5e9, 1.4e9, 1.6e9);
  const comparison = compareResults(oldResult, fixture);
  assert.equal(rowFor(comparison, 1).verdict, 'within-spread');
  assert.ok(rowFor(comparison, 1).deltaPercent < -5);
  assert.equal(comparison.regressed, false);
});

test('a drop within the threshold is no regression even when every run is slower', () => {
  const oldResult = copy();
  const newResult = copy();
  setReceiver(oldResult.cases[0], 2.45e9, 2.44e9, 2.46e9);
  setReceiver(newResult.cases[0], 2.40e9, 2.39e9, 2.41e9);
  assert.equal(rowFor(compareResults(oldResult, newResult), 0).verdict, 'within-threshold');
  // Exactly at the threshold is not "more than" it.
  setReceiver(oldResult.cases[0], 4e9, 4e9, 4e9);
  setReceiver(newResult.cases[0], 3.8e9, 3.8e9, 3.8e9);
  const row = rowFor(compareResults(oldResult, newResult), 0);
  assert.equal(row.deltaPercent, -5);
  assert.equal(row.verdict, 'within-threshold');
});

test('faster is the mirror image and never fails the comparison', () => {
  const oldResult = copy();
  setReceiver(oldResult.cases[1], 2.0e9, 1.9e9, 2.1e9);
  const comparison = compareResults(oldResult, fixture);
  assert.equal(rowFor(comparison, 0, 'reverse').verdict, 'faster');
  assert.equal(comparison.regressed, false);
});

test('a case that measured before and fails now is a regression', () => {
  const newResult = copy();
  Object.assign(newResult.cases[0], { status: 'failed', reason: 'relay client exited with code 1', sender: null, receiver: null });
  const comparison = compareResults(fixture, newResult);
  assert.equal(rowFor(comparison, 0).verdict, 'failed');
  assert.equal(rowFor(comparison, 0).new, null);
  assert.equal(comparison.regressed, true);
  // Skipped (an interrupted run) is not measured, not failed.
  newResult.cases[0].status = 'skipped';
  assert.equal(rowFor(compareResults(fixture, newResult), 0).verdict, 'not-measured');
  assert.equal(compareResults(fixture, newResult).regressed, false);
});

test('cases match by chain and direction; the unmatched are listed last and never fail', () => {
  const oldResult = copy();
  const newResult = copy();
  oldResult.cases = oldResult.cases.filter((caseResult) => caseResult.index !== 1);
  newResult.cases = newResult.cases.filter((caseResult) => caseResult.direction !== 'reverse');
  // Reordered and renumbered: matching does not use the index.
  newResult.cases.reverse();
  newResult.cases.forEach((caseResult, position) => { caseResult.index = position; });
  const comparison = compareResults(oldResult, newResult);
  assert.deepEqual(comparison.rows.map((row) => [chainMethod(row), row.direction, row.verdict]), [
    ['rc4-md5', 'forward', 'not-measured'],
    ['chacha20-ietf-poly1305', 'forward', 'only-new'],
    ['aes-256-gcm', 'forward', 'within-threshold'],
    ['aes-256-gcm', 'reverse', 'only-old'],
    ['rc4-md5', 'reverse', 'only-old'],
  ]);
  assert.equal(comparison.regressed, false);
});

test('the same chain listed twice matches in order', () => {
  const oldResult = copy();
  const newResult = copy();
  for (const result of [oldResult, newResult]) result.cases = [structuredClone(result.cases[0]), structuredClone(result.cases[0])];
  setReceiver(oldResult.cases[1], 3.0e9, 2.9e9, 3.1e9);
  setReceiver(newResult.cases[1], 3.0e9, 2.9e9, 3.1e9);
  assert.deepEqual(compareResults(oldResult, newResult).rows.map((row) => row.verdict), ['within-threshold', 'within-threshold']);
});

test('a result from before repeats is one run: its bitrate is its min and max', () => {
  const oldResult = copy();
  oldResult.options = { ...oldResult.options, repeat: undefined };
  oldResult.cases = [{
    index: 0,
    presets: fixture.cases[0].presets,
    status: 'ok',
    reason: null,
    sender: { bytes: 1, seconds: 3, bits_per_second: 3.2e9 },
    receiver: { bytes: 1, seconds: 3.1, bits_per_second: 3.0e9 },
    wallSeconds: 3.4,
  }];
  const row = rowFor(compareResults(oldResult, fixture), 0);
  assert.deepEqual(row.old, { median: 3.0e9, min: 3.0e9, max: 3.0e9, cv: 0, runs: 1 });
  assert.equal(row.verdict, 'slower');
});

test('warnings when machine, Node.js or run length differ, or a run was cut short', () => {
  const oldResult = copy();
  oldResult.environment.cpu.model = 'Intel(R) Core(TM) i3-4160 CPU @ 3.60GHz';
  oldResult.options.duration = 10;
  oldResult.complete = false;
  assert.deepEqual(compareResults(oldResult, fixture).warnings, [
    'CPU differs: Intel(R) Core(TM) i3-4160 CPU @ 3.60GHz in old, AMD EPYC 7B13 in new',
    'duration differs: 10 in old, 3 in new',
    'the old run was cut short; its missing cases are not measured',
  ]);
});

test('the table: one aligned row per case, the rule, and the verdict line', () => {
  const oldResult = copy();
  setReceiver(oldResult.cases[0], 3.0e9, 2.9e9, 3.1e9);
  const lines = formatComparison(compareResults(oldResult, fixture), { color: false }).split('\n');
  assert.equal(lines[0], 'Receiver median bitrates, old run 2026-11-23T01:02:03.456Z (3 runs a case) against new run 2026-11-23T01:02:03.456Z (3 runs a case).');
  assert.equal(lines[2], 'Case  Direction  Chain                                             Old                          New                          Delta   Verdict');
  assert.equal(lines[3], '   0  forward    ss-base + ss-aead-cipher(aes-256-gcm)             3.00 Gbits/sec (2.90..3.10)  2.45 Gbits/sec (2.41..2.52)  -18.3%  slower');
  assert.equal(lines[7], `   2  forward    ss-base + ss-stream-cipher(rc4-md5)               -${' '.repeat(28)}-${' '.repeat(36)}not measured`);
  assert.equal(lines.at(-2), 'REGRESSED: 1 of 6 cases got slower than the old run.');
  assert.match(lines.at(-3), /more than 5% and the old and new min\.\.max ranges do not overlap/);
  assert.equal(formatComparison(compareResults(fixture, fixture)).split('\n').at(-2),
    'No regression: no case got slower by more than 5% beyond the runs\' spread.');
});

test('colour only when asked, and then the same text underneath', () => {
  const oldResult = copy();
  setReceiver(oldResult.cases[0], 3.0e9, 2.9e9, 3.1e9);
  oldResult.environment.node.node = '18.0.0';
  const comparison = compareResults(oldResult, fixture);
  const plain = formatComparison(comparison, { color: false });
  const colored = formatComparison(comparison, { color: true });
  assert.doesNotMatch(plain, ANSI);
  assert.match(colored, /\x1b\[31m\x1b\[1mslower/);
  assert.equal(colored.replace(/\x1b\[\d+m/g, ''), plain);
});

test('cipherbench compare exits 0, 1 on a regression and 2 on a bad file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cipherbench-compare-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const oldResult = copy();
  setReceiver(oldResult.cases[0], 3.0e9, 2.9e9, 3.1e9);
  const files = {
    same: FIXTURE.pathname,
    faster: join(dir, 'faster.json'),
    notJson: join(dir, 'broken.json'),
    notResult: join(dir, 'other.json'),
  };
  await writeFile(files.faster, JSON.stringify(oldResult));
  await writeFile(files.notJson, '{"cases": [');
  await writeFile(files.notResult, '{"name": "cipherbench"}');
  const compare = (...args) => execa('node', [BIN, 'compare', ...args], { reject: false, env: { NO_COLOR: '1' } });

  const same = await compare(files.same, files.same);
  assert.equal(same.exitCode, 0, same.stderr);
  assert.match(same.stdout, /^No regression/m);

  const regressed = await compare(files.faster, files.same);
  assert.equal(regressed.exitCode, 1, regressed.stderr);
  assert.match(regressed.stdout, /aes-256-gcm\).*-18\.3%\s+slower$/m);
  assert.equal((await compare(files.faster, files.same, '--threshold', '20')).exitCode, 0);

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

function chainMethod(row) {
  return row.presets.at(-1).params.method;
}
