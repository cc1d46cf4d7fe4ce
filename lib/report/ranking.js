import { caseLabel } from './case-label.js';
import { formatBitrateIn, formatFixed } from './units.js';

// The one ranking every report prints: measured cases by their (median)
// receiver bitrate, highest first, as the blinksocks report ranked them;
// the rest in run order after them. A stable sort keeps ties in run order.
// At a fixed rate (--rate) cost is the figure: cases with a cost by their
// pair's CPU seconds per GB, lowest first, then those without one (direct,
// or every run saturated) by bitrate. A case the request workload measured
// has no bitrate: rankRequests() ranks it.
export function rankCases(result) {
  const measured = result.cases.filter((caseResult) => caseResult.status === 'ok' && caseResult.receiver);
  const byBitrate = (a, b) => b.receiver.bits_per_second - a.receiver.bits_per_second;
  const ranked = isCostRanked(result)
    ? [
      ...measured.filter((caseResult) => caseResult.cost).sort((a, b) => a.cost.pair.cpuSecondsPerGB - b.cost.pair.cpuSecondsPerGB),
      ...measured.filter((caseResult) => !caseResult.cost).sort(byBitrate),
    ]
    : measured.sort(byBitrate);
  return { ranked, unranked: result.cases.filter((caseResult) => caseResult.status !== 'ok') };
}

export function isCostRanked(result) {
  return result.options.rate !== null && result.options.rate !== undefined && !result.options.udp;
}

// '9.41 [8.80-10.2]': the pair's CPU seconds per GB with its interval.
export function pairCostText(cost) {
  const figure = formatFixed(cost.pair.cpuSecondsPerGB, 2);
  const interval = bracketedInterval(cost.pair, (value) => formatFixed(value, 2));
  return interval ? `${figure} ${interval}` : figure;
}

// The request workload's ranking: by (median) requests per second, highest
// first, as seed 002's tables read.
export function rankRequests(result) {
  return result.cases
    .filter((caseResult) => caseResult.status === 'ok' && caseResult.requests)
    .sort((a, b) => b.requests.requestsPerSecond - a.requests.requestsPerSecond);
}

export function isRepeated(caseResult) {
  return caseResult.runs.length > 1;
}

// The case --relative-to named, as { index, label }; null without one.
export function relativeReference(result) {
  const to = result.cases.find((caseResult) => caseResult.relative)?.relative.to;
  if (to === undefined) return null;
  const reference = result.cases.find((caseResult) => caseResult.index === to);
  return { index: to, label: reference ? caseLabel(reference) : `case ${to}` };
}

// A case's median as a multiple of the reference's, '0.83 x [0.79-0.88]'
// (the median of the paired per-round ratios and its interval),
// 'reference' for the reference itself, or '' when there is nothing to
// say: no --relative-to, or one side measured nothing.
export function relativeCell(caseResult) {
  const { relative } = caseResult;
  if (!relative) return '';
  if (caseResult.index === relative.to) return 'reference';
  if (relative.ratio === null) return '';
  const ratio = `${formatFixed(relative.ratio, 2)} x`;
  return relative.low === null || relative.low === undefined ? ratio : `${ratio} [${formatFixed(relative.low, 2)}-${formatFixed(relative.high, 2)}]`;
}

// Whether a ratio's interval holds 1.0: the case and the reference cannot
// be told apart at the interval's level.
export function cannotTellFromReference({ relative }) {
  return Boolean(relative && relative.low !== null && relative.low !== undefined && relative.low <= 1 && relative.high >= 1);
}

// '[2.11-2.40]' in the median's unit: the interval of a side's median.
// One that too few rounds give only at a lower level than asked says so:
// '[2.11-2.40 at 75%]'. '' without an interval (one run, an old result).
export function intervalText(side) {
  return bracketedInterval(side, (value) => formatBitrateIn(value, side.bits_per_second));
}

// '[low-high]' of any figure's interval, each end written by format, with
// ' at N%' where too few rounds give it only at a lower level than asked;
// '' without one. Bitrates, costs and request rates all print their
// intervals through this, so they read alike in every report.
export function bracketedInterval({ low, high, coverage, level }, format) {
  if (low === null || low === undefined) return '';
  const range = `${format(low)}-${format(high)}`;
  return coverage < level ? `[${range} at ${formatFixed(coverage * 100, 0)}%]` : `[${range}]`;
}

// Whether the receiver interval of ranked[position] overlaps that of the
// case ranked just above it: their order may then be the noise's, not the
// code's.
// Ranked by cost (byCost), the pair's cost intervals are set side by side.
export function overlapsAbove(ranked, position, byCost = false) {
  if (position === 0) return false;
  const figure = (caseResult) => (byCost ? caseResult.cost?.pair : caseResult.receiver);
  return intervalsOverlap(figure(ranked[position - 1]), figure(ranked[position]));
}

function intervalsOverlap(above, below) {
  if (!above || !below) return false;
  if (above.low === null || above.low === undefined || below.low === null || below.low === undefined) return false;
  return below.high >= above.low && above.high >= below.low;
}

// Without intervals to set side by side (one round), whether the median of
// ranked[position] is closer to that of the case just above it than the
// machine's own spread (the noise floor's cv, as a share of the upper
// median): a difference the machine could make on its own.
export function withinNoiseAbove(ranked, position, noiseFloor) {
  if (position === 0 || !noiseFloor) return false;
  const [above, below] = [ranked[position - 1].receiver, ranked[position].receiver];
  return closerThanNoise(above, below, above.bits_per_second, below.bits_per_second, noiseFloor);
}

// Only where there is no interval to judge by.
function closerThanNoise(above, below, aboveValue, belowValue, noiseFloor) {
  if (above.low !== null && above.low !== undefined) return false;
  return Math.abs(aboveValue - belowValue) < noiseFloor.cv * aboveValue;
}

// The request workload's rank note, by the same two rules on requests per
// second: 'overlaps #2', 'within noise of #2' (one round, closer than the
// noise floor's cv), or ''.
export function requestsRankNote(ranked, position, noiseFloor) {
  if (position === 0) return '';
  const [above, below] = [ranked[position - 1].requests, ranked[position].requests];
  if (intervalsOverlap(above, below)) return `overlaps #${position}`;
  if (noiseFloor && closerThanNoise(above, below, above.requestsPerSecond, below.requestsPerSecond, noiseFloor)) return `within noise of #${position}`;
  return '';
}

// What the ranking says of ranked[position] against the case above it:
// 'overlaps #2' (their intervals overlap), 'within noise of #2' (one round,
// closer than the noise floor), or ''. `byCost`: ranked by cost.
export function rankNote(ranked, position, { byCost = false, noiseFloor = null } = {}) {
  if (overlapsAbove(ranked, position, byCost)) return `overlaps #${position}`;
  if (!byCost && withinNoiseAbove(ranked, position, noiseFloor)) return `within noise of #${position}`;
  return '';
}

// 'not converged: ±6.1%' for a case the stopping rule gave up on (half its
// widest interval, as a share of the median), '' otherwise.
export function convergenceNote(caseResult) {
  if (caseResult.converged !== false) return '';
  return caseResult.width === null ? 'not converged: no interval' : `not converged: ±${formatFixed((caseResult.width / 2) * 100, 1)}%`;
}
