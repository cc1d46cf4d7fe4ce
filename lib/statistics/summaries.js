// Plain statistics over repeated measurements. Pure functions on arrays of
// numbers, so the runner and every report agree on one definition of each
// figure (docs/result.md, "A case").

import { UNSTABLE_CV } from '../result.js';

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
// Each side also carries its median's interval at `level` (a fraction):
// { low, high, level, coverage } from medianInterval below.
export function summarise(runs, { level = DEFAULT_LEVEL } = {}) {
  const ok = runs.filter((run) => run.status === 'ok' && run.sender && run.receiver);
  if (ok.length === 0) return { sender: null, receiver: null, unstable: false };
  const sender = summariseSide(
    ok.map((run) => run.sender),
    level,
  );
  const receiver = summariseSide(
    ok.map((run) => run.receiver),
    level,
  );
  return { sender, receiver, unstable: receiver.cv > UNSTABLE_CV };
}

// The level an interval is given at unless a run asks for another.
export const DEFAULT_LEVEL = 0.95;
// Resamples of a bootstrap interval, as criterion.rs and compare use.
const RESAMPLES = 10_000;

// The distribution-free interval for a median (the sign-test interval):
// with the n values sorted, the chance that the true median lies between
// the k-th smallest and the k-th largest is 1 - 2 P(B <= k - 1), B being
// Binomial(n, 1/2), whatever the distribution the values come from. The
// narrowest such pair whose chance is at least `level` is returned, as
// { low, high, level, coverage }, coverage being that exact chance. Too
// few values for the level (fewer than 6 at 95 %) give min..max with the
// lower coverage it has (75 % for 3 values), so a reader sees how sure the
// figure is instead of a level it does not reach. One value has no
// interval: low and high are null.
export function medianInterval(values, level = DEFAULT_LEVEL) {
  requireValues(values, 'medianInterval');
  const n = values.length;
  if (n < 2) return { low: null, high: null, level, coverage: 0 };
  const sorted = ascending(values);
  const below = binomialHalfCdf(n);
  let k = 1;
  while (k + 1 <= Math.floor((n + 1) / 2) && 1 - 2 * below[k] >= level) k += 1;
  return { low: sorted[k - 1], high: sorted[n - k], level, coverage: 1 - 2 * below[k - 1] };
}

// The smallest count of values for which medianInterval reaches `level`:
// min..max covers 1 - 2 / 2^n.
export function roundsForLevel(level) {
  let n = 2;
  while (1 - 2 * 0.5 ** n < level) n += 1;
  return n;
}

// cdf[j] = P(B <= j) for B ~ Binomial(n, 1/2), by the recurrence on
// C(n, j), in doubles: exact to the last bit for the counts a run makes.
function binomialHalfCdf(n) {
  const cdf = [];
  let term = 0.5 ** n;
  let sum = 0;
  for (let j = 0; j <= n; j += 1) {
    sum += term;
    cdf.push(sum);
    term = (term * (n - j)) / (j + 1);
  }
  return cdf;
}

// The percentile bootstrap interval of the median of `values`, as
// { low, high, level }: the values resampled with replacement RESAMPLES
// times, the tails of the resampled medians cut at (1 - level) / 2. The
// random numbers come from `seed`, so the same values always give the same
// interval. With fewer than 3 values there is nothing to resample into an
// interval: low and high are null.
export function bootstrapMedianInterval(values, { level = DEFAULT_LEVEL, seed = BOOTSTRAP_SEED } = {}) {
  requireValues(values, 'bootstrapMedianInterval');
  if (values.length < 3) return { low: null, high: null, level };
  const random = seededRandom(seed);
  const sample = new Float64Array(values.length);
  const medians = new Float64Array(RESAMPLES);
  for (let i = 0; i < RESAMPLES; i += 1) {
    for (let j = 0; j < sample.length; j += 1) sample[j] = values[Math.floor(random() * values.length)];
    medians[i] = sortedMedian(sample.sort());
  }
  medians.sort();
  const tail = (1 - level) / 2;
  return { low: medians[Math.floor(tail * RESAMPLES)], high: medians[Math.ceil((1 - tail) * RESAMPLES) - 1], level };
}

// A fixed seed for intervals read back from data, so a file reads the same
// every time it is reported.
export const BOOTSTRAP_SEED = 0x9e3779b9;

// The median as defined above, on values already in order (ten thousand
// resamples make the copy median() takes add up).
export function sortedMedian(sorted) {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// A small, well-mixed 32-bit generator (Tommy Ettinger's mulberry32),
// returning numbers in [0, 1): seedable, which Math.random is not, so a
// run's order and every resampled interval can be made again.
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The case's cost (docs/result.md) from its runs[]: for each relay, medians
// over the ok runs that have one. cpuSecondsPerGB is the median of each
// run's own CPU seconds per 1e9 bytes iperf3 received, not a ratio of two
// medians, so it describes runs that happened; `pair` is the two relays'
// together. Each cpuSecondsPerGB has its interval at `level` beside it
// ({ low, high, level, coverage }, as medianInterval). A run at a fixed
// rate that did not reach it (saturated) is left out and counted in
// saturatedRuns. null when no such run has a cost (a platform without
// /proc, or every run saturated).
export function summariseCost(runs, { level = DEFAULT_LEVEL } = {}) {
  const costed = runs.filter((run) => run.status === 'ok' && run.cost && run.receiver?.bytes > 0 && !run.saturated);
  if (costed.length === 0) return null;
  const relay = (role) => ({
    cpuSeconds: median(costed.map((run) => run.cost[role].cpuSeconds)),
    peakRssBytes: median(costed.map((run) => run.cost[role].peakRssBytes)),
    ...perGB(
      costed.map((run) => runCostPerGB(run, role)),
      level,
    ),
  });
  return {
    client: relay('client'),
    server: relay('server'),
    pair: perGB(
      costed.map((run) => runCostPerGB(run)),
      level,
    ),
    saturatedRuns: runs.filter((run) => run.status === 'ok' && run.saturated).length,
  };
}

// For each round both `runs` and `anchorRuns` measured (ok, matched by
// their `round`), this case's receiver bitrate over the
// anchor's (the --relative-to case's): ratios of measurements made minutes apart at most, so a
// drift of the machine between rounds cancels out. `figure` may be any
// figure of a run; a run for which it is null (a saturated run's cost)
// pairs with nothing.
export function pairedRatios(runs, anchorRuns, figure = receiverBitrate) {
  const measured = (run) => run.status === 'ok' && figure(run) !== null;
  const anchor = new Map(anchorRuns.filter(measured).map((run) => [run.round, figure(run)]));
  return runs
    .filter((run) => measured(run) && anchor.get(run.round) > 0)
    .map((run) => figure(run) / anchor.get(run.round));
}

const receiverBitrate = (run) => run.receiver?.bits_per_second ?? null;

// One run's CPU seconds per GB received: one relay's, or (no role) both
// relays' together. null for a run without a cost to read.
export function runCostPerGB(run, role = null) {
  if (!run.cost || !(run.receiver?.bytes > 0)) return null;
  const seconds = role ? run.cost[role].cpuSeconds : run.cost.client.cpuSeconds + run.cost.server.cpuSeconds;
  return seconds / (run.receiver.bytes / 1e9);
}

function perGB(values, level) {
  const { low, high, coverage } = medianInterval(values, level);
  return { cpuSecondsPerGB: median(values), low, high, level, coverage };
}

function summariseSide(measurements, level) {
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
    ...medianInterval(bitrates, level),
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
