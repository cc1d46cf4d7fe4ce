// Plain statistics over repeated measurements. Pure functions on arrays of
// numbers, so the runner and every report agree on one definition of each
// figure (docs/result.md, "A case").

import { UNSTABLE_CV } from './result.js';

// What `unstable` means belongs to the result's definition (lib/result.js);
// it is given here too, beside the figures it is judged on.
export { UNSTABLE_CV };

// For an even count the median is the mean of the two middle values, the
// textbook definition hyperfine and benchstat use.
export function median(values) {
  requireValues(values, 'median');
  const sorted = ascending(values);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function min(values) {
  requireValues(values, 'min');
  return values.reduce((smallest, value) => (value < smallest ? value : smallest));
}

export function max(values) {
  requireValues(values, 'max');
  return values.reduce((largest, value) => (value > largest ? value : largest));
}

export function mean(values) {
  requireValues(values, 'mean');
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

// Bessel-corrected (n - 1): the runs are a sample of what the machine can do,
// not the whole population. A single value has no spread, so 0.
export function sampleStdDev(values) {
  requireValues(values, 'sampleStdDev');
  if (values.length < 2) return 0;
  const average = mean(values);
  const squares = values.reduce((sum, value) => sum + (value - average) ** 2, 0);
  return Math.sqrt(squares / (values.length - 1));
}

// A fraction (0.031 for 3.1 %), 0 for a single value. A mean of 0 (every run
// moved nothing) has no meaningful relative spread either, so also 0 rather
// than NaN, which JSON cannot carry.
export function coefficientOfVariation(values) {
  requireValues(values, 'coefficientOfVariation');
  const average = mean(values);
  if (values.length < 2 || average === 0) return 0;
  return sampleStdDev(values) / Math.abs(average);
}

// Nearest-rank percentile, the method HdrHistogram and wrk report: the
// smallest value with at least p % of the values at or below it. It always
// returns a value that was measured, never an interpolation between two.
// p is a percentage in [0, 100]; p = 0 gives the minimum, 100 the maximum.
export function percentile(sortedValues, p) {
  requireValues(sortedValues, 'percentile');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be within 0..100, got ${p}`);
  // 99.9 has no exact binary form: (99.9 / 100) * 1e6 is 999000.0000000001,
  // whose ceiling would skip a rank. Twelve digits keep every real rank.
  const rank = Math.ceil(Number(((p / 100) * sortedValues.length).toPrecision(12)));
  return sortedValues[Math.max(rank, 1) - 1];
}

// The case summary of docs/result.md from its runs[]: only ok runs count.
// For each side, bits_per_second is the median bitrate and bytes/seconds are
// those of the median run; for an even count, the lower-middle run (the
// slower of the two middle ones), so the reported transfer is one that
// really happened and errs on the conservative side. unstable follows the
// receiver, the side the ranking uses.
export function summarise(runs) {
  const ok = runs.filter((run) => run.status === 'ok' && run.sender && run.receiver);
  if (ok.length === 0) return { sender: null, receiver: null, unstable: false };
  const sender = summariseSide(ok.map((run) => run.sender));
  const receiver = summariseSide(ok.map((run) => run.receiver));
  return { sender, receiver, unstable: receiver.cv > UNSTABLE_CV };
}

// The case's cost (docs/result.md) from its runs[]: for each relay, medians
// over the ok runs that have one. cpuSecondsPerGB is the median of each
// run's own CPU seconds per 1e9 bytes iperf3 received, not a ratio of two
// medians, so it describes runs that happened. null when no ok run has a
// cost (a platform without /proc).
export function summariseCost(runs) {
  const costed = runs.filter((run) => run.status === 'ok' && run.cost && run.receiver?.bytes > 0);
  if (costed.length === 0) return null;
  const relay = (role) => ({
    cpuSeconds: median(costed.map((run) => run.cost[role].cpuSeconds)),
    peakRssBytes: median(costed.map((run) => run.cost[role].peakRssBytes)),
    cpuSecondsPerGB: median(costed.map((run) => run.cost[role].cpuSeconds / (run.receiver.bytes / 1e9))),
  });
  return { client: relay('client'), server: relay('server') };
}

function summariseSide(measurements) {
  const bitrates = measurements.map((measurement) => measurement.bits_per_second);
  // A stable sort keeps equal bitrates in run order, so the choice is repeatable.
  const byBitrate = [...measurements].sort((a, b) => a.bits_per_second - b.bits_per_second);
  const medianRun = byBitrate[Math.ceil(byBitrate.length / 2) - 1];
  return {
    bytes: medianRun.bytes,
    seconds: medianRun.seconds,
    bits_per_second: median(bitrates),
    min: min(bitrates),
    max: max(bitrates),
    cv: coefficientOfVariation(bitrates),
  };
}

// The latency summary of many samples (the request workload's millions):
// every sample is kept, so each figure is exact, not a histogram bucket's
// edge; percentiles are nearest-rank, as percentile() gives them, and stdev
// is the population's (these are every request, not a sample of runs).
// `samples` is a Float64Array or an array; null when there are none.
export function distribution(samples) {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  const average = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  const squares = sorted.reduce((sum, value) => sum + (value - average) ** 2, 0);
  const at = (p) => percentile(sorted, p);
  return {
    count: sorted.length,
    mean: average,
    stdev: Math.sqrt(squares / sorted.length),
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p999: at(99.9),
    max: sorted[sorted.length - 1],
  };
}

function ascending(values) {
  return [...values].sort((a, b) => a - b);
}

// An empty list has no median, minimum or percentile; asking for one is a
// bug in the caller, so fail loudly instead of returning NaN or undefined.
function requireValues(values, name) {
  if (!(Array.isArray(values) || values instanceof Float64Array) || values.length === 0) {
    throw new TypeError(`${name}: expected a non-empty array of numbers`);
  }
}
