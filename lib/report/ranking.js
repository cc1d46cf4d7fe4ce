// @ts-check
import { caseLabel } from './case-label.js';
import { isUnsteadyCeiling } from './ceiling-text.js';
import { sectionsOf } from './sections/index.js';
import { isOverBound } from './udp-bound.js';
import { formatBitrateIn, formatFixed } from './units.js';

// The one ranking every report prints: measured cases by their (median)
// receiver bitrate, highest first, as the blinksocks report ranked them;
// the rest in run order after them. A stable sort keeps ties in run order.
// At a fixed rate (--rate) cost is the figure: cases with a cost by their
// pair's CPU seconds per GB, lowest first, then those without one (direct,
// or every run saturated) by bitrate. A case the request workload measured
// has no bitrate: rankRequests() ranks it. A UDP row that lost more than
// its bound is not ranked by what got through (udp-bound.js): overBound
// lists those.
export function rankCases(result) {
  const overBound = result.cases.filter((caseResult) => caseResult.status === 'ok' && isOverBound(caseResult));
  const measured = result.cases.filter(
    (caseResult) => caseResult.status === 'ok' && caseResult.receiver && !isOverBound(caseResult),
  );
  const byBitrate = (a, b) => b.receiver.bits_per_second - a.receiver.bits_per_second;
  const ranked = isCostRanked(result)
    ? [
        ...measured
          .filter((caseResult) => caseResult.cost)
          .sort((a, b) => a.cost.pair.cpuSecondsPerGB - b.cost.pair.cpuSecondsPerGB),
        ...measured.filter((caseResult) => !caseResult.cost).sort(byBitrate),
      ]
    : measured.sort(byBitrate);
  return { ranked, unranked: result.cases.filter((caseResult) => caseResult.status !== 'ok'), overBound };
}

// A --smoke run checks that every piece works, one short run a case on
// whatever the machine is doing: every format says its order is not a
// ranking. '' for any other run.
export function smokeNote(result) {
  return result.options?.mode === 'smoke'
    ? 'A --smoke run checks that every piece works (one short run a case, nothing measured again): its order is not a ranking; run without --smoke to rank.'
    : '';
}

// Whether each run began with --warmup's traffic, or, ranked by cost
// without one, that its costs include fresh relays' first JIT work
// (docs/statistics.md): { text, warn }, or null when there is nothing to say.
export function warmupNote(result) {
  const { warmup } = result.options;
  if (warmup > 0) {
    return {
      text: `Each run began with ${warmup} s of traffic through its relays (--warmup), not counted: relays on a JIT compile their hot code over their first seconds.`,
      warn: false,
    };
  }
  if (!isCostRanked(result)) return null;
  return {
    text: "No warm-up: each cost includes what fresh relays on a JIT spend compiling over their first seconds; --warmup 6 leaves it out (docs/statistics.md, 'Warm-up').",
    warn: true,
  };
}

export function isCostRanked(result) {
  const { rate } = result.options;
  return sectionsOf(result.workload).rankedByCostAtRate && rate !== null && rate !== undefined;
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
export function relativeAnchor(result) {
  const to = result.cases.find((caseResult) => caseResult.relative)?.relative.to;
  if (to === undefined) return null;
  const anchor = result.cases.find((caseResult) => caseResult.index === to);
  return { index: to, label: anchor ? caseLabel(anchor) : `case ${to}` };
}

// A case's median as a multiple of the anchor's, '0.83 x [0.79-0.88]'
// (the median of the paired per-round ratios and its interval),
// 'anchor' for the anchor itself, or '' when there is nothing to
// say: no --relative-to, or one side measured nothing.
export function relativeCell(caseResult) {
  const { relative } = caseResult;
  if (!relative) return '';
  if (caseResult.index === relative.to) return 'anchor';
  if (relative.ratio === null) return '';
  const ratio = `${formatFixed(relative.ratio, 2)} x`;
  return relative.low === null || relative.low === undefined
    ? ratio
    : `${ratio} [${formatFixed(relative.low, 2)}-${formatFixed(relative.high, 2)}]`;
}

// Whether a ratio's interval holds 1.0: the case and the anchor cannot
// be told apart at the interval's level.
export function cannotTellFromAnchor({ relative }) {
  return Boolean(
    relative && relative.low !== null && relative.low !== undefined && relative.low <= 1 && relative.high >= 1,
  );
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
export function bracketedInterval(summary, format) {
  if (!hasInterval(summary)) return '';
  const range = `${format(summary.low)}-${format(summary.high)}`;
  return isBelowLevel(summary) ? `[${range} at ${levelPercent(summary)}]` : `[${range}]`;
}

const hasInterval = (summary) => Boolean(summary) && summary.low !== null && summary.low !== undefined;
const isBelowLevel = ({ coverage, level }) => coverage < level;

// The level a summary's interval holds: the level asked, or the lower one
// its rounds reach ('75%' with 3).
function levelPercent(summary) {
  return isBelowLevel(summary)
    ? `${formatFixed(summary.coverage * 100, 0)}%`
    : `${formatFixed(summary.level * 100, 1).replace(/\.0$/, '')}%`;
}

// The level these summaries' intervals actually hold, for a header or a
// legend: '75%' when three rounds gave every one min..max, '75%-95%' when
// they differ; '' when none has an interval.
export function levelsText(summaries) {
  const levels = summaries.filter(hasInterval).map((summary) => ({
    value: isBelowLevel(summary) ? summary.coverage : summary.level,
    text: levelPercent(summary),
  }));
  if (levels.length === 0) return '';
  const sorted = levels.sort((a, b) => a.value - b.value);
  const [lowest, highest] = [sorted[0], sorted.at(-1)];
  return lowest.text === highest.text ? lowest.text : `${lowest.text}-${highest.text}`;
}

// The figure ranked cases are set side by side on: the pair's cost when
// ranked by cost, else the receiver bitrate.
const rankedFigure = (byCost) => (caseResult) => (byCost ? caseResult.cost?.pair : caseResult.receiver);

// Whether the interval of ranked[position] overlaps that of any other
// ranked case: its order against them may then be the noise's, not the
// code's. Ranked by cost (byCost), the pair's cost intervals are set side
// by side.
export function overlapsAny(ranked, position, byCost = false) {
  return overlappingRanks(ranked, position, rankedFigure(byCost)).length > 0;
}

// The ranks (from 1), above and below, whose interval of `figure`
// overlaps that of ranked[position]: the figures put it on neither side
// of them.
function overlappingRanks(ranked, position, figure) {
  const own = figure(ranked[position]);
  return ranked.flatMap((other, at) => (at !== position && intervalsOverlap(figure(other), own) ? [at + 1] : []));
}

function intervalsOverlap(one, other) {
  if (!hasInterval(one) || !hasInterval(other)) return false;
  return other.high >= one.low && one.high >= other.low;
}

// 'overlaps #2-#5' (every rank from 2 to 5 but its own), 'overlaps #1
// and #4' (ranks 2 and 3 apart from it), so each pair can be read off a
// row; '' for none. `own` is the row's rank: a range runs across it.
export function overlapText(ranks, own) {
  if (ranks.length === 0) return '';
  const runs = [];
  for (const rank of ranks) {
    const last = runs.at(-1);
    if (last && (rank === last[1] + 1 || (rank === own + 1 && last[1] === own - 1))) last[1] = rank;
    else runs.push([rank, rank]);
  }
  const names = runs.map(([from, to]) => (from === to ? `#${from}` : `#${from}-#${to}`));
  return `overlaps ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`}`;
}

// Without intervals to set side by side (one round), whether the median of
// ranked[position] is closer to that of the case just above it than the
// machine's own spread (the noise floor's cv, as a share of the upper
// median): a difference the machine could make on its own.
export function withinNoiseAbove(ranked, position, noiseFloor) {
  if (position === 0 || !noiseFloor) return false;
  const [above, below] = [ranked[position - 1].receiver, ranked[position].receiver];
  if (hasInterval(above)) return false;
  return Math.abs(above.bits_per_second - below.bits_per_second) < noiseFloor.cv * above.bits_per_second;
}

// The request workload's rank note, by the same rules on requests per
// second: 'disturbed', 'overlaps #1-#3', or ''. Never 'within noise': the
// noise floor is a bulk stream's bitrate, not a request rate's spread.
export function requestsRankNote(ranked, position) {
  const overlapped = overlapText(
    overlappingRanks(ranked, position, (caseResult) => caseResult.requests),
    position + 1,
  );
  return joinNotes(disturbedNote(ranked[position]), overlapped);
}

// What the ranking says of ranked[position]: 'disturbed' (other work took
// the CPU it needed, docs/statistics.md), 'overlaps #2-#4' (its interval
// overlaps those of ranks 2 to 4, above or below it), 'within noise of #2'
// (one round, closer than the noise floor), 'cipher faster than #2' (a
// case of the same chain ranked above it although its own cipher is the
// faster, by more than the noise), or '' for a rank the figures stand
// behind. `byCost`: ranked by cost.
export function rankNote(ranked, position, options = {}) {
  return joinNotes(...rankNotes(ranked, position, options));
}

// The same notes as a list, for a printer that lays each out apart.
export function rankNotes(ranked, position, { byCost = false, noiseFloor = null } = {}) {
  const notes = [disturbedNote(ranked[position])];
  const overlapped = overlapText(overlappingRanks(ranked, position, rankedFigure(byCost)), position + 1);
  if (overlapped) notes.push(overlapped);
  else if (!byCost && withinNoiseAbove(ranked, position, noiseFloor)) notes.push(`within noise of #${position}`);
  if (!byCost) notes.push(againstCeilingNote(ranked, position, noiseFloor));
  return notes.filter(Boolean);
}

const joinNotes = (...notes) => notes.filter(Boolean).join(', ');

// Above every ranking, where a reader looks first: how many ranked cases
// stayed disturbed, and that their order is then not one, whatever
// their intervals say. '' when none was.
export function disturbedHeadline(ranked) {
  const disturbed = ranked.filter((caseResult) => caseResult.disturbed).length;
  if (disturbed === 0) return '';
  const all = disturbed === ranked.length;
  const cases = `${disturbed} of ${ranked.length} ranked ${ranked.length === 1 ? 'case was' : 'cases were'}`;
  const order = all
    ? 'this order is not a ranking'
    : `the ${disturbed === 1 ? 'rank' : 'ranks'} marked disturbed ${disturbed === 1 ? 'is' : 'are'} not an order`;
  return `DISTURBED: ${cases} measured while other processes took the CPU they needed: ${order}, whatever the intervals say; measure again on a quieter machine.`;
}

// 'disturbed' for a case whose only run stayed disturbed after being
// measured again, 'disturbed in 1 of 3 runs' for one with more runs, ''
// for a case measured on the machine it needed.
export function disturbedNote(caseResult) {
  const { disturbed } = caseResult;
  if (!disturbed) return '';
  return disturbed.of > 1 ? `disturbed in ${disturbed.runs} of ${disturbed.of} runs` : 'disturbed';
}

// Two cases of the same chain but for the cipher (an AES key size, say)
// must rank as their ciphers do: the relays' other work per byte is the
// same. 'cipher faster than #N' when a case is ranked below such a case
// N although its cipher alone (its ceiling, the slower direction) is the
// faster by more than CEILING_GAP, and N's bitrate is above its own by
// more than the noise (the noise floor's cv, at least 5 %): one of the two
// figures is not what the code does. A ceiling is a fifth of a CPU second
// a direction, and at 12-40 Gbit/s two of them came out 18 % apart the
// wrong way (aes-256-gcm above aes-128-gcm) on a quiet machine: below
// CEILING_GAP, ceilings say nothing about an order. Nor where a cipher is
// a small part of a relay's work: with both ceilings CIPHER_SHARE times
// the bitrate of the case ranked above or more, the cipher takes under a
// third of each byte's time and a 20 % faster one moves the bitrate by
// under 7 %, within the noise (the CTR ciphers at 20-35 Gbit/s against
// relays at 6 Gbit/s). '' when none, or without ceilings.
const CEILING_GAP = 0.2;
const CIPHER_SHARE = 3;
const NOISE_AT_LEAST = 0.05;

export function againstCeilingNote(ranked, position, noiseFloor) {
  const below = ranked[position];
  if (!below.presets || !steadyCeiling(below)) return '';
  // The cipher a large part of each byte's time, as the faster case saw it.
  const cipherBound = (other) =>
    steadyCeiling(other) &&
    Math.max(ceilingBound(other), ceilingBound(below)) < CIPHER_SHARE * other.receiver.bits_per_second;
  const margin = 1 + Math.max(noiseFloor?.cv ?? 0, NOISE_AT_LEAST);
  const shape = chainShape(below.presets);
  const above = ranked
    .slice(0, position)
    .findIndex(
      (other) =>
        cipherBound(other) &&
        other.presets &&
        !other.impl &&
        chainShape(other.presets) === shape &&
        ceilingBound(below) > ceilingBound(other) * (1 + CEILING_GAP) &&
        other.receiver.bits_per_second > below.receiver.bits_per_second * margin,
    );
  return above === -1 ? '' : `cipher faster than #${above + 1}`;
}

// A ceiling to judge an order by: measured, and its rounds agreeing.
const steadyCeiling = ({ ceiling }) => Boolean(ceiling) && !isUnsteadyCeiling(ceiling);
const ceilingBound = ({ ceiling }) => Math.min(ceiling.encryptBps, ceiling.decryptBps);
// A chain with every preset's method left out: what two cases that differ
// only in their ciphers share.
/** @param {{ name: string, params?: { [key: string]: unknown } }[]} presets */
const chainShape = (presets) =>
  JSON.stringify(
    presets.map(({ name, params = {} }) => {
      const { method, ...rest } = params;
      return { name, params: rest };
    }),
  );

// 'not converged: ±6.1%' for a case the stopping rule gave up on (half its
// widest interval, as a share of the median), '' otherwise.
export function convergenceNote(caseResult) {
  if (caseResult.converged !== false) return '';
  return caseResult.width === null
    ? 'not converged: no interval'
    : `not converged: ±${formatFixed((caseResult.width / 2) * 100, 1)}%`;
}
