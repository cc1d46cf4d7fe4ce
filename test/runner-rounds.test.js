import assert from 'node:assert/strict';
import { test } from 'node:test';
import { caseSlots, roundOrder } from '../lib/runner/schedule.js';
import { seededRandom } from '../lib/statistics/summaries.js';
import { formatTextReport } from '../lib/report/text-report.js';
import { iperf3ClientArgs, parseIperf3Json } from '../lib/traffic/iperf3.js';
import { freeRunPorts } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';
import { runRecording } from './support/run-recording.js';

// Rounds, their random order and the stopping rule, with the built-in
// engine on loopback (no iperf3 needed): `direct` and `plain` rows, which
// start quickest. Figures are never judged for speed, only for shape.
const CASES = [{ impl: 'direct' }, { impl: 'plain' }];

test('a round is every case once in a shuffled order; the same seed gives the same order; a reverse run follows its forward one', () => {
  const slots = caseSlots([{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }], ['forward', 'reverse']);
  const draw = (seed) => {
    const random = seededRandom(seed);
    return Array.from({ length: 20 }, () => roundOrder(slots, random));
  };
  const rounds = draw(1);
  assert.deepEqual(draw(1), rounds);
  assert.notDeepEqual(draw(2), rounds);
  for (const order of rounds) {
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    for (let at = 0; at < order.length; at += 2)
      assert.deepEqual([slots[order[at]].direction, order[at + 1] - order[at]], ['forward', 1]);
  }
  // Twenty rounds of four cases: more than one order, and each case first at least once.
  assert.ok(new Set(rounds.map((order) => order.join())).size > 1);
  assert.deepEqual([...new Set(rounds.map((order) => slots[order[0]].index))].sort(), [0, 1, 2, 3]);
});

test(
  '--seed is recorded and replays the order; the stopping rule stops once every interval and ratio is narrow enough',
  { timeout: 240_000 },
  async () => {
    const ports = await freeRunPorts();
    // At 50 % three rounds reach the level (min..max covers 75 %), and no
    // loopback is ten times its median apart: converged after three.
    const { result, events, pids } = await runRecording({
      ports,
      cases: CASES,
      engine: 'node',
      seed: 12345,
      confidence: '50,1000',
      relativeTo: 'direct',
    });
    assert.equal(result.options.seed, 12345);
    assert.deepEqual(result.options.confidence, { level: 0.5, width: 10 });
    assert.deepEqual([result.rounds, result.stopped], [3, 'converged']);
    const random = seededRandom(12345);
    const expected = [0, 1, 2].flatMap((round) =>
      roundOrder(caseSlots([{ index: 0 }, { index: 1 }], ['forward']), random).map((slot) => `${round}:${slot}`),
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'case-started').map((e) => `${e.round}:${e.case.index}`),
      expected,
    );
    // With the rule no round is known to be the last while it runs.
    assert.ok(events.filter((e) => e.type === 'case-finished').every((e) => e.last === false && e.rounds === null));
    assert.deepEqual(
      events.filter((e) => e.type === 'round-finished').map((e) => e.round),
      [0, 1, 2],
    );
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', caseResult.reason);
      const { low, high, level, coverage, min, max, bits_per_second: middle } = caseResult.receiver;
      assert.deepEqual([low, high, level, coverage], [min, max, 0.5, 0.75]);
      assert.ok(caseResult.converged === true && caseResult.width >= (high - low) / middle, JSON.stringify(caseResult));
    }
    const [direct, plain] = result.cases;
    assert.deepEqual(direct.relative, { to: 0, ratio: null, low: null, high: null, level: 0.5, rounds: 0 });
    // The ratio is the median of the per-round ratios, not a ratio of medians.
    const ratios = plain.runs.map(
      (run) =>
        run.receiver.bits_per_second / direct.runs.find((other) => other.round === run.round).receiver.bits_per_second,
    );
    assert.equal(plain.relative.rounds, 3);
    assert.equal(plain.relative.ratio, [...ratios].sort((a, b) => a - b)[1]);
    assert.ok(
      plain.relative.low <= plain.relative.ratio && plain.relative.ratio <= plain.relative.high,
      JSON.stringify(plain.relative),
    );
    assertAllGone(pids);
  },
);

test(
  'a rule it cannot meet stops at --max-rounds and every report says the case did not converge',
  { timeout: 240_000 },
  async () => {
    const ports = await freeRunPorts();
    const { result, events } = await runRecording({
      ports,
      cases: CASES,
      engine: 'node',
      confidence: '95,0.1',
      maxRounds: 4,
      noiseFloor: 2,
    });
    assert.deepEqual([result.rounds, result.stopped], [4, 'max-rounds']);
    // Two direct runs of 1 s before the rounds: the machine's own spread.
    assert.deepEqual(
      events.filter((e) => e.type.startsWith('noise-floor')).map((e) => e.type),
      ['noise-floor-started', 'noise-floor-finished'],
    );
    const { runs, seconds, cv, values } = result.noiseFloor;
    assert.deepEqual([runs, seconds, values.length], [2, 1, 2]);
    assert.ok(cv >= 0 && values.every((value) => value > 0), JSON.stringify(result.noiseFloor));
    // The runs planned grow by a round's as a round is added.
    assert.deepEqual(
      events.filter((e) => e.type === 'case-started').map((e) => e.total),
      [6, 6, 6, 6, 6, 6, 8, 8],
    );
    for (const caseResult of result.cases) {
      assert.equal(caseResult.converged, false);
      // Four runs give 87.5 %, short of 95 %: min..max, said as such.
      assert.equal(caseResult.receiver.coverage, 0.875);
    }
    const text = formatTextReport(result);
    assert.match(text, /not converged: ±\d+\.\d%/);
    assert.match(text, /NOT CONVERGED: 2 of 2 cases did not narrow to 95% within 0\.1% in 4 rounds \(max-rounds\)\./);
    assert.match(text, /\[[\d.]+-[\d.]+ at 88%\]/);
    assert.match(text, /\nnoise floor: direct \(no relay\) varied by cv \d+\.\d% over 2 runs of 1 s/);
    assert.match(text, /\nThe machine while it measured: load average [\d.]+-[\d.]+ before the runs, /);
  },
);

test('iperf3 at a fixed rate: -b splits the rate over the streams; its own CPU is read from -J', () => {
  assert.deepEqual(iperf3ClientArgs({ port: 5201, duration: 2, parallel: 4, rate: 1e9 }).slice(-4), [
    '-P',
    '4',
    '-b',
    '250000000',
  ]);
  assert.ok(!iperf3ClientArgs({ port: 5201, duration: 2, parallel: 1 }).includes('-b'));
  // UDP: the rate, the datagram's length, and the sink's receive buffer.
  assert.deepEqual(
    iperf3ClientArgs({ port: 5201, duration: 2, parallel: 1, udp: { rate: 5e6, length: 1200 } }).slice(-7),
    ['-u', '-b', '5000000', '-l', '1200', '-w', '4194304'],
  );
  const sum = { bytes: 1e6, seconds: 2, bits_per_second: 4e6 };
  const report = {
    end: { sum_sent: sum, sum_received: sum, cpu_utilization_percent: { host_total: 31.5, remote_total: 12.25 } },
  };
  assert.deepEqual(parseIperf3Json(JSON.stringify(report)).engineCpu, { client: 31.5, server: 12.25 });
});
