// Whether two sets of runs of one case differ by more than noise, the way
// criterion.rs decides: a test that uses every run on both sides, and an
// interval for the size of the change. Pure functions on arrays of numbers;
// docs/statistics.md explains the choice for a reader.

import { BOOTSTRAP_SEED, seededRandom, sortedMedian } from './summaries.js';

// Fewer runs a side than this and no test can tell a change from noise: the
// smallest one-sided p-value of a rank test with 2 runs a side is 1/6.
export const MIN_RUNS = 3;
export const ALPHA = 0.05;
const RESAMPLES = 10_000;
const CONFIDENCE = 0.95;

// One-sided exact Mann-Whitney U: the chance, if both sets come from the
// same distribution, of the new runs ranking this low (or lower) against
// the old ones. U counts the (old, new) pairs where the new run is the
// larger, a tie counting one half. `lower` true asks "is new slower?",
// false "is new faster?". Exact for any size without ties: the null
// distribution of U is counted by the recurrence over the last-ranked run
// (Mann and Whitney 1947); ties (two bitrates equal to the bit/s) are rare
// enough that the exact table stays a good bound.
export function mannWhitneyP(oldValues, newValues, { lower }) {
  const m = oldValues.length;
  const n = newValues.length;
  let u = 0;
  for (const a of oldValues) {
    for (const b of newValues) u += b > a ? 1 : b === a ? 0.5 : 0;
  }
  // "As low or lower" for slower; mirrored (mn - U) for faster.
  const statistic = lower ? u : m * n - u;
  const counts = uDistribution(m, n);
  const total = counts.reduce((sum, count) => sum + count, 0);
  let tail = 0;
  for (let value = 0; value <= Math.floor(statistic); value += 1) tail += counts[value];
  return tail / total;
}

// counts[u]: how many of the C(m+n, m) orderings of m old and n new runs
// give U = u. f(m, n, u) = f(m, n-1, u-m) + f(m-1, n, u): the largest run is
// new (it beats all m old runs) or old (it adds nothing).
function uDistribution(m, n) {
  let previous = Array.from({ length: n + 1 }, () => [1]);
  for (let i = 1; i <= m; i += 1) {
    const current = [[1]];
    for (let j = 1; j <= n; j += 1) {
      const size = i * j + 1;
      const row = new Array(size).fill(0);
      const withNewLast = current[j - 1];
      const withOldLast = previous[j];
      for (let u = 0; u < size; u += 1) {
        row[u] = (u - i >= 0 ? (withNewLast[u - i] ?? 0) : 0) + (withOldLast[u] ?? 0);
      }
      current.push(row);
    }
    previous = current;
  }
  return previous[n];
}

// The 95 % percentile bootstrap interval of median(new) / median(old): each
// side resampled with replacement on its own, RESAMPLES times. The random
// numbers come from a fixed seed, so the same two files always give the
// same interval (a report that changed on every reading would be no
// evidence). With 3 runs a side the interval spans about
// min(new)/max(old) .. max(new)/min(old): honest about how little 3 runs know.
export function bootstrapRatioInterval(oldValues, newValues, { seed = BOOTSTRAP_SEED } = {}) {
  const random = seededRandom(seed);
  const resampler = (values) => {
    const sample = new Float64Array(values.length);
    return () => {
      for (let i = 0; i < sample.length; i += 1) sample[i] = values[Math.floor(random() * values.length)];
      return sortedMedian(sample.sort());
    };
  };
  const [resampleNew, resampleOld] = [resampler(newValues), resampler(oldValues)];
  const ratios = new Float64Array(RESAMPLES);
  for (let i = 0; i < RESAMPLES; i += 1) ratios[i] = resampleNew() / resampleOld();
  ratios.sort();
  const tail = (1 - CONFIDENCE) / 2;
  return {
    low: ratios[Math.floor(tail * RESAMPLES)],
    high: ratios[Math.ceil((1 - tail) * RESAMPLES) - 1],
  };
}
