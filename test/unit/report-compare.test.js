import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { compareResults } from '../../lib/report/comparison.js';
import { formatComparison } from '../../lib/report/comparison-text.js';
import { createReporter } from '../../lib/report/reporter.js';
import { copy, fixture, setRuns } from '../support/result-runs.js';

const ANSI = /\x1b\[/;

const rowFor = (comparison, index, direction = 'forward') =>
  comparison.rows.find((row) => row.index === index && row.direction === direction);

test('the same file against itself: nothing moved, nothing regressed', () => {
  const comparison = compareResults(fixture, fixture);
  assert.equal(comparison.regressed, false);
  assert.equal(comparison.threshold, 5);
  // The fixture has no noise floor and no direct row: the machine is unknown.
  assert.equal(comparison.machine, null);
  assert.deepEqual(comparison.warnings, [
    'neither a noise floor nor a direct row with 2 or more runs on both sides: a change of the machine between the runs cannot be told from a change of the code (run both with the noise floor, the default)',
  ]);
  assert.deepEqual(
    comparison.rows.map((row) => [row.index, row.direction, row.verdict, row.deltaPercent]),
    [
      [0, 'forward', 'within-noise', 0],
      [0, 'reverse', 'within-noise', 0],
      [1, 'forward', 'within-noise', 0],
      // Two ok runs of three: too few to test.
      [1, 'reverse', 'cannot-tell', 0],
      [2, 'forward', 'not-measured', null],
      [2, 'reverse', 'not-measured', null],
    ],
  );
  const { values, ...summary } = rowFor(comparison, 0).new;
  assert.deepEqual(summary, { median: 2.45e9, min: 2.41e9, max: 2.52e9, cv: fixture.cases[0].receiver.cv, runs: 3 });
  assert.deepEqual(values, [2.45e9, 2.41e9, 2.52e9]);
  assert.equal(rowFor(comparison, 0).p, 0.5);
  assert.equal(rowFor(comparison, 1, 'reverse').new.runs, 2);
});

test('a synthetic regression: 18 % slower, every new run below every old one, the interval beyond the threshold', () => {
  const oldResult = copy();
  setRuns(oldResult.cases[0], [3.0e9, 2.9e9, 3.1e9]);
  const comparison = compareResults(oldResult, fixture);
  const row = rowFor(comparison, 0);
  assert.equal(row.verdict, 'slower');
  assert.equal(row.regressed, true);
  assert.ok(Math.abs(row.deltaPercent - ((2.45 - 3.0) / 3.0) * 100) < 1e-9);
  // 3 against 3 with no overlap: the exact one-sided p is 1 / C(6, 3).
  assert.equal(row.p, 0.05);
  // With 3 runs a side the 95 % interval spans min(new)/max(old) .. max(new)/min(old).
  assert.ok(Math.abs(row.intervalPercent.low - (2.41 / 3.1 - 1) * 100) < 1e-9, row.intervalPercent.low);
  assert.ok(Math.abs(row.intervalPercent.high - (2.52 / 2.9 - 1) * 100) < 1e-9, row.intervalPercent.high);
  assert.equal(comparison.regressed, true);
  // The same drop under a threshold the interval reaches is no regression.
  const lenient = compareResults(oldResult, fixture, { threshold: 15 });
  assert.equal(rowFor(lenient, 0).verdict, 'within-threshold');
  assert.equal(lenient.regressed, false);
});

test('slower in a run other processes disturbed is the machine changing, as far as the CPU they took reaches', () => {
  const oldResult = copy();
  setRuns(oldResult.cases[0], [3.0e9, 2.9e9, 3.1e9]);
  const disturbedNew = copy();
  const disturb = (caseResult, others) => {
    caseResult.disturbed = {
      runs: caseResult.runs.length,
      of: caseResult.runs.length,
      reason: 'other processes took 30%',
    };
    for (const run of caseResult.runs)
      Object.assign(run, { disturbed: 'other processes took 30%', disturbance: { ...run.disturbance, others } });
  };
  // 18 % slower [-22.3 %, -13.1 %] where others took 30 % of the machine: theirs.
  disturb(disturbedNew.cases[0], 0.3);
  const comparison = compareResults(oldResult, disturbedNew);
  const row = rowFor(comparison, 0);
  assert.deepEqual([row.verdict, row.regressed, row.disturbedIn], ['machine-changed', false, 'new']);
  assert.equal(comparison.regressed, false);
  assert.match(formatComparison(comparison), /the machine changed: disturbed in the new run/);
  // Where they took 5 %, an 18 % drop is beyond what they could take: slower.
  disturb(disturbedNew.cases[0], 0.05);
  assert.equal(rowFor(compareResults(oldResult, disturbedNew), 0).verdict, 'slower');
  // The old run disturbed, the new one slower still: that is the code.
  disturb(oldResult.cases[0], 0.3);
  assert.equal(rowFor(compareResults(oldResult, fixture), 0).verdict, 'slower');
});

test('a drop beyond the threshold whose runs overlap is within the noise, not a regression', () => {
  // New chacha: runs 1.10, 1.62, 1.35 (unstable). Old: 1.40, 1.50, 1.60.
  const oldResult = copy();
  setRuns(oldResult.cases[2], [1.4e9, 1.5e9, 1.6e9]);
  const comparison = compareResults(oldResult, fixture);
  assert.equal(rowFor(comparison, 1).verdict, 'within-noise');
  assert.ok(rowFor(comparison, 1).deltaPercent < -5);
  assert.ok(rowFor(comparison, 1).p > 0.05);
  assert.equal(comparison.regressed, false);
});

test('a drop within the threshold is no regression even when every run is slower', () => {
  const oldResult = copy();
  const newResult = copy();
  setRuns(oldResult.cases[0], [2.44e9, 2.45e9, 2.46e9]);
  setRuns(newResult.cases[0], [2.39e9, 2.4e9, 2.41e9]);
  const row = rowFor(compareResults(oldResult, newResult), 0);
  assert.equal(row.p, 0.05);
  assert.equal(row.verdict, 'within-threshold');
});

test('faster is the mirror image and never fails the comparison', () => {
  const oldResult = copy();
  setRuns(oldResult.cases[1], [2.0e9, 1.9e9, 2.1e9]);
  const comparison = compareResults(oldResult, fixture);
  assert.equal(rowFor(comparison, 0, 'reverse').verdict, 'faster');
  assert.ok(rowFor(comparison, 0, 'reverse').intervalPercent.low > 5);
  assert.equal(comparison.regressed, false);
});

test('one run a side cannot tell a change from noise: no verdict, exit 0, unless --strict', () => {
  // Two back-to-back default runs of the same code: camellia-128-cfb read
  // 32.8 % slower the second time, one run each.
  const oldResult = copy();
  const newResult = copy();
  setRuns(oldResult.cases[0], [1.52e9]);
  setRuns(newResult.cases[0], [1.02e9]);
  const comparison = compareResults(oldResult, newResult);
  const row = rowFor(comparison, 0);
  assert.equal(row.verdict, 'cannot-tell');
  assert.equal(row.regressed, false);
  assert.equal(row.p, null);
  assert.equal(row.intervalPercent, null);
  assert.ok(row.deltaPercent < -32);
  assert.equal(comparison.regressed, false);
  const text = formatComparison(comparison);
  assert.match(text, /cannot tell \(1 vs 1 run\)$/m);
  assert.match(
    text.split('\n').at(-2),
    /^Cannot tell: 2 of 6 cases have fewer than 3 runs on a side, .*--repeat 3 or more .*--strict/,
  );
  // --strict gates on the threshold and the (point) ranges, as before.
  const strict = compareResults(oldResult, newResult, { strict: true });
  assert.equal(rowFor(strict, 0).verdict, 'slower');
  assert.equal(strict.regressed, true);
  // Two runs against three: still too few.
  setRuns(oldResult.cases[0], [1.52e9, 1.5e9]);
  setRuns(newResult.cases[0], [1.02e9, 1.01e9, 1.03e9]);
  assert.equal(rowFor(compareResults(oldResult, newResult), 0).verdict, 'cannot-tell');
});

test('a case that measured before and fails now is a regression', () => {
  const newResult = copy();
  Object.assign(newResult.cases[0], {
    status: 'failed',
    reason: 'relay client exited with code 1',
    sender: null,
    receiver: null,
  });
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
  newResult.cases.forEach((caseResult, position) => {
    caseResult.index = position;
  });
  const comparison = compareResults(oldResult, newResult);
  // The new run measured forward only: the old run's reverse cases are
  // left out, and one line says so.
  assert.deepEqual(
    comparison.rows.map((row) => [chainMethod(row), row.direction, row.verdict]),
    [
      ['rc4-md5', 'forward', 'not-measured'],
      ['chacha20-ietf-poly1305', 'forward', 'only-new'],
      ['aes-256-gcm', 'forward', 'within-noise'],
    ],
  );
  assert.equal(comparison.directions, 'Compared forward only: the old run also measured reverse.');
  assert.match(
    formatComparison(comparison).split('\n')[1],
    /^Compared forward only: the old run also measured reverse\.$/,
  );
  assert.equal(comparison.regressed, false);
});

test('the same chain listed twice matches in order', () => {
  const oldResult = copy();
  const newResult = copy();
  for (const result of [oldResult, newResult])
    result.cases = [structuredClone(result.cases[0]), structuredClone(result.cases[0])];
  setRuns(oldResult.cases[1], [3.0e9, 2.9e9, 3.1e9]);
  setRuns(newResult.cases[1], [3.0e9, 2.9e9, 3.1e9]);
  assert.deepEqual(
    compareResults(oldResult, newResult).rows.map((row) => row.verdict),
    ['within-noise', 'within-noise'],
  );
});

test('a result from before repeats is one run: its bitrate is its min and max', () => {
  const oldResult = copy();
  oldResult.options = { ...oldResult.options, repeat: undefined };
  oldResult.cases = [
    {
      index: 0,
      presets: fixture.cases[0].presets,
      status: 'ok',
      reason: null,
      sender: { bytes: 1, seconds: 3, bits_per_second: 3.2e9 },
      receiver: { bytes: 1, seconds: 3.1, bits_per_second: 3.0e9 },
      wallSeconds: 3.4,
    },
  ];
  const row = rowFor(compareResults(oldResult, fixture), 0);
  assert.deepEqual(row.old, { median: 3.0e9, min: 3.0e9, max: 3.0e9, cv: 0, runs: 1, values: [3.0e9] });
  assert.equal(row.verdict, 'cannot-tell');
  assert.equal(rowFor(compareResults(oldResult, fixture, { strict: true }), 0).verdict, 'slower');
});

test('warnings when engine, machine or Node.js differ, or a run was cut short', () => {
  const oldResult = copy();
  const newResult = copy();
  oldResult.options.engine = 'iperf3';
  newResult.options.engine = 'node';
  oldResult.environment.cpu.model = 'Intel(R) Core(TM) i3-4160 CPU @ 3.60GHz';
  oldResult.complete = false;
  assert.deepEqual(compareResults(oldResult, newResult).warnings.slice(0, 3), [
    'engine differs: iperf3 in old, node in new',
    'CPU differs: Intel(R) Core(TM) i3-4160 CPU @ 3.60GHz in old, AMD EPYC 7B13 in new',
    'the old run was cut short; its missing cases are not measured',
  ]);
});

test('the table: one aligned row per case with its change, interval and p, the rule, and the verdict line', () => {
  const oldResult = copy();
  setRuns(oldResult.cases[0], [3.0e9, 2.9e9, 3.1e9]);
  const lines = formatComparison(compareResults(oldResult, fixture), { color: false }).split('\n');
  assert.equal(
    lines[0],
    'Receiver median bitrates, old run 2026-11-23T01:02:03.456Z (3 rounds) against new run 2026-11-23T01:02:03.456Z (3 rounds): TCP bulk at full speed, 1 stream, 3 s a run.',
  );
  assert.match(lines[1], /^warning: neither a noise floor nor a direct row/);
  lines.splice(1, 1);
  assert.match(lines[2], /^Case {2}Direction {2}Chain {3,}Old {3,}New {3,}Change \[95% CI\] {3,}p {3,}Verdict$/);
  assert.match(
    lines[3],
    /^ {3}0 {2}forward {4}ss-base \+ ss-aead-cipher\(aes-256-gcm\) +3\.00 Gbits\/sec \(2\.90\.\.3\.10\) {2}2\.45 Gbits\/sec \(2\.41\.\.2\.52\) {2}-18\.3% \[-22\.3%, -13\.1%\] {2}0\.050 +slower$/,
  );
  assert.match(lines[6], /1  reverse .* cannot tell \(2 vs 2 runs\)$/);
  assert.match(lines[7], /^ {3}2 {2}forward {4}ss-base \+ ss-stream-cipher\(rc4-md5\) +- +- +not measured$/);
  assert.equal(lines.at(-2), 'REGRESSED: 1 of 6 cases got slower than the old run.');
  assert.match(
    lines.at(-3),
    /Mann-Whitney U test gives p <= 0\.05 and the whole 95% interval of the change lies beyond 5%/,
  );
  const same = compareResults(fixture, fixture);
  same.rows = same.rows.filter((row) => row.verdict !== 'cannot-tell');
  assert.equal(
    formatComparison(same).split('\n').at(-2),
    "No regression: no case got slower by more than 5% beyond the runs' noise.",
  );
});

test('colour only when asked, and then the same text underneath', () => {
  const oldResult = copy();
  setRuns(oldResult.cases[0], [3.0e9, 2.9e9, 3.1e9]);
  oldResult.environment.node.node = '18.0.0';
  const comparison = compareResults(oldResult, fixture);
  const plain = formatComparison(comparison, { color: false });
  const colored = formatComparison(comparison, { color: true });
  assert.doesNotMatch(plain, ANSI);
  assert.match(colored, /\x1b\[31m\x1b\[1mslower/);
  assert.equal(colored.replace(/\x1b\[\d+m/g, ''), plain);
});

function chainMethod(row) {
  return row.presets.at(-1).params.method;
}

test('both runs measured against the same reference in rounds: cases judged on their paired ratios, which cancel a slower machine', () => {
  // Case 1 against case 0 (forward), five rounds a side. In the new run
  // the machine is 20 % slower for both, round by round: the bitrates
  // fell, the ratio did not move.
  const build = (scale) => {
    const result = copy();
    result.rounds = 5;
    const reference = result.cases.find((c) => c.index === 0 && c.direction === 'forward');
    const mine = result.cases.find((c) => c.index === 1 && c.direction === 'forward');
    const wobble = [1, 0.97, 1.03, 0.99, 1.02];
    setRuns(
      reference,
      wobble.map((w) => 3e9 * w * scale),
    );
    setRuns(
      mine,
      wobble.map((w, round) => 2.4e9 * w * scale * [1, 1.01, 0.99, 1.005, 0.995][round]),
    );
    for (const caseResult of result.cases)
      caseResult.relative = { to: 0, ratio: null, low: null, high: null, level: 0.95, rounds: 5 };
    return result;
  };
  const comparison = compareResults(build(1), build(0.8));
  assert.match(comparison.pairedWith, /./);
  const row = rowFor(comparison, 1);
  assert.equal(row.paired, true);
  assert.equal(row.verdict, 'within-noise');
  assert.ok(Math.abs(row.deltaPercent) < 2, String(row.deltaPercent));
  // The reference itself has no ratio to itself: judged on its bitrates, slower.
  const reference = rowFor(comparison, 0);
  assert.deepEqual([reference.paired, reference.verdict], [false, 'slower']);
  const text = formatComparison(comparison);
  assert.match(text, /within noise \*\n/);
  assert.match(
    text,
    /\*: 1 of \d+ cases judged on their per-round ratio to .+ in each run \(Old and New: the ratios' median and range\), not on their bitrates/,
  );
  // Old and New of a paired row are its ratios: 0.80 x in both runs.
  assert.match(text, /\n +1 +forward +\S.+ +0\.80 x \(0\.79\.\.0\.81\) +0\.80 x \(0\.79\.\.0\.81\) +/);
  assert.match(text, /Cannot tell apart from the old run: .*case 1[,.]/);
});

// Two real identical smoke runs made back to back on the shared 2-core
// machine (`run --smoke --repeat 3 --noise-floor 3 --no-ceiling`, the same
// code): between them the direct runs of the noise floor went from 16.6
// Gbit/s (cv 52 %) to 24.4 Gbit/s (cv 4 %).
const SMOKE_OLD = JSON.parse(await readFile(new URL('../fixtures/compare/smoke-1.json', import.meta.url), 'utf8'));
const SMOKE_NEW = JSON.parse(await readFile(new URL('../fixtures/compare/smoke-2.json', import.meta.url), 'utf8'));
const REQUESTS = new URL('../fixtures/compare/requests-smoke.json', import.meta.url).pathname;

test('two real identical runs while the machine moved: the machine changed, never faster, and the threshold is its noise', () => {
  const comparison = compareResults(SMOKE_OLD, SMOKE_NEW);
  assert.deepEqual(
    comparison.rows.map((row) => row.verdict),
    ['within-noise', 'machine-changed', 'within-noise'],
  );
  assert.equal(comparison.regressed, false);
  assert.equal(comparison.machine.sources.length, 1);
  assert.ok(
    Math.abs(
      comparison.machine.deltaPercent -
        (SMOKE_NEW.noiseFloor.bits_per_second / SMOKE_OLD.noiseFloor.bits_per_second - 1) * 100,
    ) < 1e-9,
  );
  assert.ok(Math.abs(comparison.effectiveThreshold - SMOKE_OLD.noiseFloor.cv * 100) < 1e-9);
  const text = formatComparison(comparison);
  assert.match(
    text,
    /^The machine, as the noise floor saw it: 16\.6 Gbits\/sec \(cv 52\.1%\) in the old run, 24\.4 Gbits\/sec \(cv 3\.7%\) in the new: \+47\.3% \[/m,
  );
  assert.match(text, /^The threshold is 52\.1%, not 5%/m);
  assert.match(text, /aes-192-ctr\).* \+141\.8% \[\+27\.9%, \+399\.8%\] +0\.050 +the machine changed by \+47\.3%$/m);
  assert.match(
    text.split('\n').at(-2),
    /^The machine changed between the runs: 1 of 3 cases moved with the direct runs \(\+47\.3%\); no case moved beyond that\./,
  );
  assert.doesNotMatch(text, /(faster|slower)$/m);
  // Without the direct runs the same two files read "faster": the noise
  // floor is what tells the machine from the code.
  const blind = compareResults({ ...SMOKE_OLD, noiseFloor: null }, { ...SMOKE_NEW, noiseFloor: null });
  assert.equal(blind.rows[1].verdict, 'faster');
});

test('a real run against its own copy scaled: the whole machine slower is the machine; one case slower beyond it is a regression', () => {
  const scaled = (result, factor, { cases = () => true, noiseFloor = true } = {}) => {
    const copyOf = structuredClone(result);
    if (noiseFloor) copyOf.noiseFloor.values = copyOf.noiseFloor.values.map((value) => value * factor);
    copyOf.noiseFloor.bits_per_second *= noiseFloor ? factor : 1;
    for (const caseResult of copyOf.cases.filter(cases)) {
      for (const run of caseResult.runs) run.receiver.bits_per_second *= factor;
      for (const key of ['bits_per_second', 'min', 'max', 'low', 'high']) caseResult.receiver[key] *= factor;
    }
    return copyOf;
  };
  const self = compareResults(SMOKE_NEW, SMOKE_NEW);
  assert.deepEqual(
    self.rows.map((row) => row.verdict),
    ['within-noise', 'within-noise', 'within-noise'],
  );
  // Its noise floor's cv, 3.7 %, is below the threshold: 5 % holds.
  assert.deepEqual([self.machine.deltaPercent, self.effectiveThreshold], [0, 5]);

  // Everything, the direct runs too, 30 % slower: the machine's doing
  // (aes-256-ctr's runs spread too far for the rank test to see it).
  const machine = compareResults(SMOKE_NEW, scaled(SMOKE_NEW, 0.7));
  assert.deepEqual(
    machine.rows.map((row) => row.verdict),
    ['machine-changed', 'machine-changed', 'within-noise'],
  );
  assert.equal(machine.regressed, false);
  assert.match(formatComparison(machine), /the machine changed by -30\.0%$/m);

  // One case at half its speed while the direct runs stayed: a regression.
  const aes256 = (caseResult) => caseResult.presets.at(-1).params.method === 'aes-256-ctr';
  const regression = compareResults(SMOKE_NEW, scaled(SMOKE_NEW, 0.5, { cases: aes256, noiseFloor: false }));
  assert.deepEqual(
    regression.rows.map((row) => row.verdict),
    ['within-noise', 'within-noise', 'slower'],
  );
  assert.equal(regression.regressed, true);

  // The same half speed, but the direct runs fell by 40 % too: the case's
  // interval reaches the machine's, so it is not called slower.
  const both = compareResults(
    SMOKE_NEW,
    scaled(scaled(SMOKE_NEW, 0.5, { cases: aes256, noiseFloor: false }), 0.6, { cases: () => false }),
  );
  assert.equal(both.rows[2].verdict, 'machine-changed');
  assert.equal(both.regressed, false);
});

// Two real identical smoke runs, the second with `while :; do :; done`
// running through it on the shared 2-core machine (no idle CPU in either).
// The noise floor, measured first, barely moved (-3 %); the relays of
// aes-192-ctr got 36 % less CPU and carried 43 % fewer bytes.
test('a real run during a busy loop: a case whose relays got less CPU from a busy machine is the machine, not slower', async () => {
  const before = JSON.parse(await readFile(new URL('../fixtures/compare/busy-before.json', import.meta.url), 'utf8'));
  const during = JSON.parse(await readFile(new URL('../fixtures/compare/busy-during.json', import.meta.url), 'utf8'));
  const comparison = compareResults(before, during);
  assert.deepEqual(
    comparison.rows.map((row) => row.verdict),
    ['within-noise', 'machine-changed', 'machine-noise'],
  );
  assert.equal(comparison.regressed, false);
  const starved = comparison.rows[1];
  assert.ok(starved.relayCpu.intervalPercent.high < -comparison.effectiveThreshold, JSON.stringify(starved.relayCpu));
  const text = formatComparison(comparison);
  assert.match(
    text,
    /aes-192-ctr\).* -43\.0% \[-71\.9%, -28\.9%\] +0\.050 +the machine changed: relays got -36\.3% CPU$/m,
  );
  assert.match(
    text,
    /^The machine changed between the runs: 1 of 3 cases moved with the CPU their relays got from a busy machine; no case moved beyond that\./m,
  );
  // Had the machine left CPU idle, the relays' lower share would be their
  // own doing (a stall in the code): slower.
  const idle = structuredClone(during);
  for (const run of idle.cases.flatMap((caseResult) => caseResult.runs)) run.disturbance.idle = 0.5;
  const notBusy = compareResults(before, idle);
  assert.equal(notBusy.rows[1].verdict, 'slower');
  assert.equal(notBusy.regressed, true);
  // Nor does 36 % less CPU explain 80 % fewer bytes: slower.
  const worse = structuredClone(during);
  for (const run of worse.cases[1].runs) run.receiver.bits_per_second *= 0.35;
  for (const key of ['bits_per_second', 'min', 'max']) worse.cases[1].receiver[key] *= 0.35;
  assert.equal(compareResults(before, worse).rows[1].verdict, 'slower');
});

test('run --baseline of another workload: one line on stderr, the run still reported, and it does not pass', async () => {
  const written = { stdout: '', stderr: '' };
  const stream = (name) => ({
    isTTY: false,
    write: (text) => {
      written[name] += text;
      return true;
    },
  });
  const reporter = await createReporter({
    baseline: REQUESTS,
    archive: false,
    color: false,
    stdout: stream('stdout'),
    stderr: stream('stderr'),
  });
  const { ok, regressed } = await reporter.finish(SMOKE_NEW);
  assert.deepEqual({ ok, regressed }, { ok: false, regressed: false });
  assert.match(written.stdout, /\(ranking\):/);
  assert.doesNotMatch(written.stdout, /Against the baseline/);
  assert.equal(
    written.stderr,
    `cipherbench: --baseline ${REQUESTS}: cannot compare: the old run measured requests, 20 clients, 2-byte responses, kept-alive connections, 1 s a run, the new one TCP bulk at full speed, 1 stream, 1 s a run; compare two runs of one workload\n`,
  );
});

test('the verdict is plain data and the table reads only it: the --json comparison prints the same table', () => {
  const oldResult = copy();
  setRuns(oldResult.cases[0], [3.0e9, 2.9e9, 3.1e9]);
  const comparison = compareResults(oldResult, fixture);
  const parsed = JSON.parse(JSON.stringify(comparison));
  assert.deepEqual(parsed, comparison, 'no function, no undefined, nothing a JSON reader would lose');
  for (const color of [false, true])
    assert.equal(formatComparison(parsed, { color }), formatComparison(comparison, { color }));
});
