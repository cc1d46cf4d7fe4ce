import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  UNSTABLE_CV, coefficientOfVariation, distribution, max, mean, median, min, percentile, sampleStdDev, summarise, summariseCost,
} from '../lib/statistics.js';

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
  bytes: Math.round((bitsPerSecond * seconds) / 8), seconds, bits_per_second: bitsPerSecond,
});
const okRun = (repeat, senderBps, receiverBps) => ({
  repeat, status: 'ok', reason: null, sender: measurement(senderBps, 3), receiver: measurement(receiverBps, 3.1), wallSeconds: 3.4,
});
const failedRun = (repeat) => ({
  repeat, status: 'failed', reason: 'relay exited with code 1', sender: null, receiver: null, wallSeconds: 0.2,
});

test('summarise: odd count takes the median run for bytes and seconds', () => {
  const runs = [okRun(0, 2.5e9, 2.4e9), okRun(1, 2.3e9, 2.2e9), okRun(2, 2.6e9, 2.5e9)];
  const { sender, receiver, unstable } = summarise(runs);
  assert.deepEqual(receiver, {
    ...runs[0].receiver, min: 2.2e9, max: 2.5e9, cv: coefficientOfVariation([2.4e9, 2.2e9, 2.5e9]),
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
  assert.equal(UNSTABLE_CV, 0.10);
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

test('summariseCost: medians over ok runs; per GB is the median of each run\'s own ratio', () => {
  const runs = [
    costed({ ...okRun(0, 2e9, 2e9), receiver: { bytes: 1e9, seconds: 3, bits_per_second: 2e9 } }, 2, 3, 60e6),
    costed({ ...okRun(1, 2e9, 2e9), receiver: { bytes: 0.5e9, seconds: 3, bits_per_second: 2e9 } }, 1.5, 2, 50e6),
    costed({ ...okRun(2, 2e9, 2e9), receiver: { bytes: 2e9, seconds: 3, bits_per_second: 2e9 } }, 3, 4, 70e6),
    { ...failedRun(3), cost: null },
  ];
  assert.deepEqual(summariseCost(runs), {
    // CPU s/GB by run: client 2, 3, 1.5; server 3, 4, 2.
    client: { cpuSeconds: 2, peakRssBytes: 60e6, cpuSecondsPerGB: 2 },
    server: { cpuSeconds: 3, peakRssBytes: 60e6 + 1, cpuSecondsPerGB: 3 },
  });
});

test('summariseCost: null when no ok run has a cost', () => {
  assert.equal(summariseCost([{ ...okRun(0, 2e9, 2e9), cost: null }, failedRun(1)]), null);
  assert.equal(summariseCost([]), null);
});

test('distribution: every sample kept, nearest-rank percentiles exact at millions of values, population stdev', () => {
  const million = new Float64Array(1_000_000);
  for (let i = 0; i < million.length; i += 1) million[i] = million.length - i;
  const figures = distribution(million);
  assert.equal(figures.count, 1_000_000);
  assert.deepEqual([figures.p50, figures.p90, figures.p99, figures.p999, figures.max], [500_000, 900_000, 990_000, 999_000, 1_000_000]);
  assert.equal(million[0], 1_000_000, 'the samples given are left as they were');
  const small = distribution([2, 4, 4, 4, 5, 5, 7, 9]);
  assert.equal(small.mean, 5);
  assert.equal(small.stdev, 2);
  assert.equal(distribution(new Float64Array(0)), null);
});
