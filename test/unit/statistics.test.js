import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  UNSTABLE_CV,
  bootstrapMedianInterval,
  coefficientOfVariation,
  distribution,
  max,
  mean,
  median,
  medianInterval,
  min,
  pairedRatios,
  percentile,
  roundsForLevel,
  sampleStdDev,
  seededRandom,
  summarise,
  summariseCost,
} from '../../lib/statistics/summaries.js';

const close = (actual, expected, digits = 12) =>
  assert.ok(Math.abs(actual - expected) < 10 ** -digits, `${actual} is not ${expected}`);

test('median of an odd count is the middle value, whatever the input order', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([7]), 7);
  assert.equal(median([5, 9, 1, 9, 2]), 5);
});

test('median of an even count is the mean of the two middle values', () => {
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([10, 20]), 15);
});

test('median does not reorder its input', () => {
  const values = [3, 1, 2];
  median(values);
  assert.deepEqual(values, [3, 1, 2]);
});

test('min, max and mean', () => {
  assert.equal(min([3, -1, 2]), -1);
  assert.equal(max([3, -1, 2]), 3);
  assert.equal(mean([1, 2, 3, 4]), 2.5);
});

test('sample standard deviation divides by n - 1', () => {
  // Squares of deviations from 5: 9 1 1 1 0 0 4 16 = 32; 32 / 7.
  close(sampleStdDev([2, 4, 4, 4, 5, 5, 7, 9]), Math.sqrt(32 / 7));
  close(sampleStdDev([1, 2, 3]), 1);
  assert.equal(sampleStdDev([42]), 0);
});

test('coefficient of variation is a fraction, 0 for one value or a zero mean', () => {
  close(coefficientOfVariation([1, 2, 3]), 0.5);
  close(coefficientOfVariation([90, 100, 110]), 0.1);
  assert.equal(coefficientOfVariation([2.4e9]), 0);
  assert.equal(coefficientOfVariation([0, 0, 0]), 0);
});

test('percentile is nearest-rank: a measured value, never interpolated', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(hundred, 50), 50);
  assert.equal(percentile(hundred, 90), 90);
  assert.equal(percentile(hundred, 99), 99);
  assert.equal(percentile(hundred, 99.9), 100);
  assert.equal(percentile(hundred, 100), 100);
  assert.equal(percentile(hundred, 0), 1);
  // Five values: p50 is rank ceil(2.5) = 3, p90 rank ceil(4.5) = 5.
  const five = [15, 20, 35, 40, 50];
  assert.equal(percentile(five, 50), 35);
  assert.equal(percentile(five, 40), 20);
  assert.equal(percentile(five, 90), 50);
  assert.equal(percentile([0.8], 99.9), 0.8);
});

test('statistics of nothing are a bug and fail loudly', () => {
  for (const statistic of [median, min, max, mean, sampleStdDev, coefficientOfVariation]) {
    assert.throws(() => statistic([]), TypeError);
  }
  assert.throws(() => percentile([], 50), TypeError);
  assert.throws(() => percentile([1, 2], 101), RangeError);
  assert.throws(() => percentile([1, 2], -1), RangeError);
});

const measurement = (bitsPerSecond, seconds = 3) => ({
  bytes: Math.round((bitsPerSecond * seconds) / 8),
  seconds,
  bits_per_second: bitsPerSecond,
});
const okRun = (round, senderBps, receiverBps) => ({
  round,
  status: 'ok',
  reason: null,
  sender: measurement(senderBps, 3),
  receiver: measurement(receiverBps, 3.1),
  wallSeconds: 3.4,
});
const failedRun = (round) => ({
  round,
  status: 'failed',
  reason: 'relay exited with code 1',
  sender: null,
  receiver: null,
  wallSeconds: 0.2,
});

test('summarise: odd count takes the median run for bytes and seconds', () => {
  const runs = [okRun(0, 2.5e9, 2.4e9), okRun(1, 2.3e9, 2.2e9), okRun(2, 2.6e9, 2.5e9)];
  const { sender, receiver, unstable } = summarise(runs);
  assert.deepEqual(receiver, {
    ...runs[0].receiver,
    min: 2.2e9,
    max: 2.5e9,
    cv: coefficientOfVariation([2.4e9, 2.2e9, 2.5e9]),
    // Three runs reach 75 % at best: min..max, said as such.
    low: 2.2e9,
    high: 2.5e9,
    level: 0.95,
    coverage: 0.75,
  });
  assert.equal(sender.bits_per_second, 2.5e9);
  assert.equal(sender.bytes, runs[0].sender.bytes);
  assert.equal(sender.min, 2.3e9);
  assert.equal(sender.max, 2.6e9);
  assert.equal(unstable, false);
});

test('summarise: even count averages the middle bitrates and reports the lower-middle run', () => {
  const runs = [okRun(0, 4e9, 4e9), okRun(1, 1e9, 1e9), okRun(2, 3e9, 3e9), okRun(3, 2e9, 2e9)];
  const { receiver } = summarise(runs);
  assert.equal(receiver.bits_per_second, 2.5e9);
  assert.equal(receiver.bytes, runs[3].receiver.bytes);
  assert.equal(receiver.seconds, runs[3].receiver.seconds);
});

test('summarise: sides choose their median run independently', () => {
  const runs = [okRun(0, 1e9, 3e9), okRun(1, 2e9, 1e9), okRun(2, 3e9, 2e9)];
  const { sender, receiver } = summarise(runs);
  assert.equal(sender.bytes, runs[1].sender.bytes);
  assert.equal(receiver.bytes, runs[2].receiver.bytes);
});

test('summarise: a single run has no spread', () => {
  const { receiver, unstable } = summarise([okRun(0, 2e9, 1.9e9)]);
  assert.equal(receiver.min, 1.9e9);
  assert.equal(receiver.max, 1.9e9);
  assert.equal(receiver.cv, 0);
  assert.equal(unstable, false);
});

test('summarise: only ok runs count; none ok gives no measurement', () => {
  const runs = [failedRun(0), okRun(1, 2e9, 2e9), failedRun(2), okRun(3, 4e9, 4e9)];
  assert.equal(summarise(runs).receiver.bits_per_second, 3e9);
  assert.deepEqual(summarise([failedRun(0), failedRun(1)]), { sender: null, receiver: null, unstable: false });
  assert.deepEqual(summarise([]), { sender: null, receiver: null, unstable: false });
});

test('summarise: unstable when the receiver cv exceeds 10 %, whatever the sender does', () => {
  assert.equal(UNSTABLE_CV, 0.1);
  // Receiver 1, 2, 3 (scaled): cv 0.5.
  assert.equal(summarise([okRun(0, 2e9, 1e9), okRun(1, 2e9, 2e9), okRun(2, 2e9, 3e9)]).unstable, true);
  // Receiver 0.89, 1.0, 1.11: cv 0.11, just over.
  assert.equal(summarise([okRun(0, 2e9, 0.89e9), okRun(1, 2e9, 1e9), okRun(2, 2e9, 1.11e9)]).unstable, true);
  // Receiver 0.91, 1.0, 1.09: cv 0.09, just under, though the sender spreads wildly.
  assert.equal(summarise([okRun(0, 1e9, 0.91e9), okRun(1, 2e9, 1e9), okRun(2, 6e9, 1.09e9)]).unstable, false);
});

const costed = (run, clientCpu, serverCpu, rss) => ({
  ...run,
  cost: {
    client: { cpuSeconds: clientCpu, userSeconds: clientCpu, systemSeconds: 0, peakRssBytes: rss },
    server: { cpuSeconds: serverCpu, userSeconds: serverCpu, systemSeconds: 0, peakRssBytes: rss + 1 },
  },
});

test("summariseCost: medians over ok runs; per GB is the median of each run's own ratio", () => {
  const runs = [
    costed({ ...okRun(0, 2e9, 2e9), receiver: { bytes: 1e9, seconds: 3, bits_per_second: 2e9 } }, 2, 3, 60e6),
    costed({ ...okRun(1, 2e9, 2e9), receiver: { bytes: 0.5e9, seconds: 3, bits_per_second: 2e9 } }, 1.5, 2, 50e6),
    costed({ ...okRun(2, 2e9, 2e9), receiver: { bytes: 2e9, seconds: 3, bits_per_second: 2e9 } }, 3, 4, 70e6),
    { ...failedRun(3), cost: null },
  ];
  assert.deepEqual(summariseCost(runs), {
    // CPU s/GB by run: client 2, 3, 1.5; server 3, 4, 2; pair 5, 7, 3.5.
    // Three runs: min..max, at 75 %.
    client: { cpuSeconds: 2, peakRssBytes: 60e6, cpuSecondsPerGB: 2, low: 1.5, high: 3, level: 0.95, coverage: 0.75 },
    server: { cpuSeconds: 3, peakRssBytes: 60e6 + 1, cpuSecondsPerGB: 3, low: 2, high: 4, level: 0.95, coverage: 0.75 },
    pair: { cpuSecondsPerGB: 5, low: 3.5, high: 7, level: 0.95, coverage: 0.75 },
    saturatedRuns: 0,
  });
  // At a fixed rate a run that fell short of it is left out and counted.
  const atRate = summariseCost([
    { ...runs[0], saturated: false },
    { ...runs[1], saturated: true },
    { ...runs[2], saturated: false },
  ]);
  assert.deepEqual([atRate.pair.cpuSecondsPerGB, atRate.saturatedRuns], [(5 + 3.5) / 2, 1]);
});

test('summariseCost: null when no ok run has a cost', () => {
  assert.equal(summariseCost([{ ...okRun(0, 2e9, 2e9), cost: null }, failedRun(1)]), null);
  assert.equal(summariseCost([]), null);
});

// P(B <= j) for B ~ Binomial(n, 1/2), in exact integers: the sign test's
// table, computed here independently of the code under test.
function signTestCoverage(n, k) {
  let below = 0n;
  let choose = 1n;
  for (let j = 0; j < k; j += 1) {
    below += choose;
    choose = (choose * BigInt(n - j)) / BigInt(j + 1);
  }
  return 1 - (2 * Number(below)) / 2 ** n;
}

test('median interval: the order statistics of the sign-test table, n = 5 to 30', () => {
  // Ranks of the 95 % interval for the median (Conover, Practical
  // nonparametric statistics, table A3; the same in any sign-test table).
  const table = {
    6: 1,
    7: 1,
    8: 1,
    9: 2,
    10: 2,
    11: 2,
    12: 3,
    13: 3,
    14: 3,
    15: 4,
    16: 4,
    17: 5,
    18: 5,
    19: 5,
    20: 6,
    21: 6,
    22: 6,
    23: 7,
    24: 7,
    25: 8,
    26: 8,
    27: 8,
    28: 9,
    29: 9,
    30: 10,
  };
  for (let n = 5; n <= 30; n += 1) {
    // Reversed, so the interval cannot lean on the input's order.
    const values = Array.from({ length: n }, (_, i) => (n - i) * 10);
    const interval = medianInterval(values, 0.95);
    if (n === 5) {
      // Five values reach 93.75 % at best: min..max, with its coverage.
      assert.deepEqual(interval, { low: 10, high: 50, level: 0.95, coverage: 1 - 2 / 32 });
      continue;
    }
    const k = table[n];
    assert.deepEqual([interval.low, interval.high], [k * 10, (n + 1 - k) * 10], `n = ${n}`);
    close(interval.coverage, signTestCoverage(n, k));
    assert.ok(interval.coverage >= 0.95, `n = ${n}`);
    // One rank further in would fall below 95 %: this is the narrowest.
    assert.ok(signTestCoverage(n, k + 1) < 0.95, `n = ${n}`);
  }
});

test('median interval: other levels, too few values, one value', () => {
  // 99 %: n = 10 has ranks 1 and 10 (99.8 %), n = 20 ranks 4 and 17 (99.74 %).
  assert.deepEqual(medianInterval([...Array(20).keys()], 0.99).low, 3);
  assert.deepEqual(medianInterval([...Array(10).keys()], 0.99).low, 0);
  // 50 %: n = 10 reaches ranks 4 and 7 (65.6 %); rank 5 gives 24.6 %.
  assert.deepEqual(
    [medianInterval([...Array(10).keys()], 0.5).low, medianInterval([...Array(10).keys()], 0.5).high],
    [3, 6],
  );
  assert.deepEqual(medianInterval([3, 1, 2]), { low: 1, high: 3, level: 0.95, coverage: 0.75 });
  assert.deepEqual(medianInterval([2, 1]), { low: 1, high: 2, level: 0.95, coverage: 0.5 });
  assert.deepEqual(medianInterval([7]), { low: null, high: null, level: 0.95, coverage: 0 });
  assert.deepEqual([roundsForLevel(0.95), roundsForLevel(0.99), roundsForLevel(0.5)], [6, 8, 2]);
});

test('median interval covers the true median about as often as it says', () => {
  // 2000 samples of 10 from a skewed distribution (exponential, median ln 2):
  // the exact coverage is 97.85 %; a sampling error of 4 sigma is 1.3 %.
  const random = seededRandom(42);
  let covered = 0;
  for (let trial = 0; trial < 2000; trial += 1) {
    const values = Array.from({ length: 10 }, () => -Math.log(1 - random()));
    const { low, high } = medianInterval(values);
    if (low <= Math.LN2 && Math.LN2 <= high) covered += 1;
  }
  assert.ok(Math.abs(covered / 2000 - 0.978515625) < 0.013, `covered ${covered} of 2000`);
});

test('bootstrap interval of a median: repeatable, inside the values, none below 3 values', () => {
  const values = [0.77, 0.81, 0.74, 0.79, 0.83, 0.76, 0.8];
  const interval = bootstrapMedianInterval(values);
  assert.deepEqual(bootstrapMedianInterval(values), interval);
  assert.ok(
    interval.low >= 0.74 && interval.low <= median(values) && interval.high >= median(values) && interval.high <= 0.83,
    JSON.stringify(interval),
  );
  assert.equal(interval.level, 0.95);
  // All resamples of equal values have that value as their median.
  assert.deepEqual(bootstrapMedianInterval([2, 2, 2, 2]), { low: 2, high: 2, level: 0.95 });
  assert.deepEqual(bootstrapMedianInterval([1, 2]), { low: null, high: null, level: 0.95 });
  // A different seed draws different resamples; a stricter level is no narrower.
  const strict = bootstrapMedianInterval(values, { level: 0.99 });
  assert.ok(strict.low <= interval.low && strict.high >= interval.high);
});

test('paired ratios: one per round both measured, matched by round', () => {
  const run = (round, bps, status = 'ok') => ({
    round,
    status,
    receiver: status === 'ok' ? { bits_per_second: bps } : null,
  });
  const mine = [run(0, 2), run(1, 3), run(2, 0, 'failed'), run(3, 8)];
  const reference = [run(1, 6), run(0, 4), run(2, 5), run(3, 0, 'failed')];
  assert.deepEqual(pairedRatios(mine, reference), [0.5, 0.5]);
});

test('distribution: every sample kept, nearest-rank percentiles exact at millions of values, population stdev', () => {
  const million = new Float64Array(1_000_000);
  for (let i = 0; i < million.length; i += 1) million[i] = million.length - i;
  const figures = distribution(million);
  assert.equal(figures.count, 1_000_000);
  assert.deepEqual(
    [figures.p50, figures.p90, figures.p99, figures.p999, figures.max],
    [500_000, 900_000, 990_000, 999_000, 1_000_000],
  );
  assert.equal(million[0], 1_000_000, 'the samples given are left as they were');
  const small = distribution([2, 4, 4, 4, 5, 5, 7, 9]);
  assert.equal(small.mean, 5);
  assert.equal(small.stdev, 2);
  assert.equal(distribution(new Float64Array(0)), null);
});
