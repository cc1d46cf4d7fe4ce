import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isResult, RESULT_VERSION, upgradeCase, upgradeResult } from '../lib/result.js';

const read = (url) => JSON.parse(readFileSync(url, 'utf8'));
const FIGURES = new URL('../docs/figures/', import.meta.url);
// Every archived result the repository keeps: written by earlier versions.
const ARCHIVED = [
  ...readdirSync(FIGURES).filter((name) => name.endsWith('.json')).map((name) => [name, read(new URL(name, FIGURES))]),
  ['result-v2.json', read(new URL('./fixtures/result-v2.json', import.meta.url))],
];
const RUN_FIELDS = ['resultVersion', 'tool', 'startedAt', 'finishedAt', 'wallSeconds', 'complete', 'interrupted', 'environment', 'options', 'warnings', 'cases'];
const OPTION_FIELDS = ['casesFile', 'mode', 'duration', 'repeat', 'parallel', 'reverse', 'both', 'latency', 'ceiling', 'filter', 'relativeTo', 'engine', 'link', 'remote', 'ports'];
const CASE_FIELDS = ['index', 'status', 'reason', 'direction', 'parallel', 'runs', 'sender', 'receiver', 'unstable', 'wallSeconds', 'cost', 'wire', 'latency', 'ceiling', 'relative', 'warnings'];

test('every archived result upgrades to the current shape, field for field', () => {
  for (const [name, archived] of ARCHIVED) {
    assert.ok(isResult(archived), name);
    const result = upgradeResult(archived);
    assert.equal(result.resultVersion, RESULT_VERSION, name);
    assert.deepEqual(RUN_FIELDS.filter((field) => !(field in result)), [], name);
    assert.deepEqual(OPTION_FIELDS.filter((field) => !(field in result.options)), [], name);
    for (const caseResult of result.cases) {
      assert.deepEqual(CASE_FIELDS.filter((field) => !(field in caseResult)), [], `${name} case ${caseResult.index}`);
      for (const side of [caseResult.sender, caseResult.receiver].filter(Boolean)) {
        assert.deepEqual(['min', 'max', 'cv'].filter((field) => typeof side[field] !== 'number'), [], `${name} case ${caseResult.index}`);
      }
    }
    // What the file had stays as it was.
    assert.deepEqual(result.cases.map((caseResult) => caseResult.runs), archived.cases.map((caseResult) => caseResult.runs), name);
  }
});

test('a current result comes back as it is; upgrading twice is upgrading once', () => {
  const once = upgradeResult(ARCHIVED.at(-1)[1]);
  assert.equal(upgradeResult(once), once);
});

test('a result from before repeats: its case is its one run, a skipped case has none, what it lacks means "not measured"', () => {
  const measured = { bits_per_second: 3e9, bytes: 1, seconds: 3 };
  const old = {
    tool: { name: 'cipherbench', version: '0.1.0' },
    options: { duration: 3, parallel: 2, filter: null },
    cases: [
      { index: 0, presets: [{ name: 'ss-base' }], status: 'ok', reason: null, sender: measured, receiver: measured, wallSeconds: 3.4 },
      { index: 1, presets: [{ name: 'ss-base' }], status: 'skipped', reason: 'legacy', sender: null, receiver: null, wallSeconds: 0 },
    ],
  };
  const result = upgradeResult(old);
  const [ok, skipped] = result.cases;
  assert.deepEqual(ok.runs, [{ repeat: 0, status: 'ok', reason: null, sender: measured, receiver: measured, wallSeconds: 3.4, cost: null }]);
  assert.deepEqual(ok.receiver, { ...measured, min: 3e9, max: 3e9, cv: 0 });
  assert.equal(ok.parallel, 2);
  assert.equal(ok.direction, 'forward');
  assert.deepEqual([ok.cost, ok.wire, ok.udp, ok.latency, ok.ceiling, ok.relative, ok.unstable, ok.warnings], [null, null, null, null, null, null, false, []]);
  assert.deepEqual(skipped.runs, []);
  assert.deepEqual(result.options, {
    duration: 3, parallel: 2, filter: null, repeat: 1, mode: null, latency: false, reverse: false, both: false, ceiling: false, engine: null, relativeTo: null, link: null, remote: null, udp: false, rate: null, length: null, maxLoss: null,
  });
  assert.deepEqual(result.warnings, []);
  assert.equal(old.resultVersion, undefined, 'the given object is left alone');
  assert.deepEqual(upgradeCase(ok), ok);
});

test('a result from a newer cipherbench is refused, not misread', () => {
  assert.throws(() => upgradeResult({ resultVersion: RESULT_VERSION + 1, cases: [] }), (error) => error.exitCode === 2 && /newer than this cipherbench reads/.test(error.message));
});
