import { Chalk } from 'chalk';
import { upgradeResult } from '../result.js';
import { caseDefinition, caseLabel } from './case-label.js';
import { ALPHA, bootstrapRatioInterval, mannWhitneyP, MIN_RUNS } from './significance.js';
import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';
import { pairedRatios } from '../statistics.js';

// Two result objects (docs/result.md), case by case: did the new run get
// slower than the old one? Both `cipherbench compare` and `run --baseline`
// print this and exit by its `regressed`. docs/statistics.md tells users.
//
// The rule, on the receiver bitrates of the ok runs (the figure the ranking
// uses), as criterion.rs decides a change:
//   with MIN_RUNS (3) or more runs a side, 'slower' when a one-sided exact
//   Mann-Whitney U test says the new runs rank below the old ones
//   (p <= 0.05) AND the whole 95 % bootstrap interval of the change of the
//   median lies beyond -threshold; 'faster' mirrored;
//   with fewer runs on either side, 'cannot tell': one run a side carries no
//   spread, and noise of 5-30 % between two runs of the same code is
//   ordinary on a shared machine. --strict gates such rows anyway, on the
//   threshold and disjoint min..max ranges, for a person who accepts that.
//
// A case measured before that fails now counts as slower too (a regression
// nothing could be faster than); a case only in one file, or not measured in
// the old one, is listed and never fails the comparison.

export const DEFAULT_THRESHOLD = 5;

// The words for each verdict, in compare's table and history's alike.
export const VERDICT_TEXT = {
  slower: 'slower',
  faster: 'faster',
  'within-threshold': 'within threshold',
  'within-spread': 'within spread',
  'within-noise': 'within noise',
  'cannot-tell': 'cannot tell',
  failed: 'FAILED now',
  'not-measured': 'not measured',
  'only-old': 'only in old',
  'only-new': 'only in new',
};

// With intervals 'when-significant', the bootstrap interval is computed
// only where the test found a change, the one place it decides the verdict
// (history makes a comparison per run and case: the verdicts stay the same,
// at a fraction of the time).
export function compareResults(oldGiven, newGiven, { threshold = DEFAULT_THRESHOLD, strict = false, intervals = 'always' } = {}) {
  const [oldResult, newResult] = [oldGiven, newGiven].map(upgradeResult);
  const oldByKey = groupByKey(oldResult.cases);
  const rule = { threshold, strict, intervals, pairing: sharedReference(oldResult, newResult) };
  const rows = newResult.cases.map((newCase) => {
    const oldCase = oldByKey.get(caseKey(newCase))?.shift() ?? null;
    return compareCase(oldCase, newCase, rule);
  });
  // What is left was in the old file only (a --filter, or a removed case).
  for (const oldCases of oldByKey.values()) {
    for (const oldCase of oldCases) rows.push(compareCase(oldCase, null, rule));
  }
  return {
    threshold,
    strict,
    minRuns: MIN_RUNS,
    old: runSummary(oldResult),
    new: runSummary(newResult),
    warnings: differences(oldResult, newResult),
    pairedWith: rule.pairing ? rule.pairing.label : null,
    rows,
    regressed: rows.some((row) => row.regressed),
  };
}

// Both results measured in rounds against the same --relative-to case (the
// same chain or row, in each direction): then each case is compared on its
// per-round ratio to that case, which cancels whatever moved the machine
// between the two runs, as a reference measured beside the case sees the
// same neighbours. { label, old(caseResult), new(caseResult) } giving each
// side's reference case, or null.
function sharedReference(oldResult, newResult) {
  const referenceOf = (result) => {
    const to = result.cases.find((caseResult) => caseResult.relative)?.relative.to;
    if (to === undefined || !(result.rounds > 0)) return null;
    return (direction) => result.cases.find((caseResult) => caseResult.index === to && caseResult.direction === direction) ?? null;
  };
  const [oldReference, newReference] = [referenceOf(oldResult), referenceOf(newResult)];
  if (!oldReference || !newReference) return null;
  const sample = oldResult.cases.find((caseResult) => caseResult.relative);
  const [oldCase, newCase] = [oldReference(sample.direction), newReference(sample.direction)];
  if (!oldCase || !newCase || caseKey(oldCase) !== caseKey(newCase)) return null;
  return { label: caseLabel(newCase), old: (caseResult) => oldReference(caseResult.direction), new: (caseResult) => newReference(caseResult.direction) };
}

export function formatComparison(comparison, { color = false } = {}) {
  const paint = new Chalk({ level: color ? 1 : 0 });
  const header = ['Case', 'Direction', 'Chain', 'Old', 'New', 'Change [95% CI]', 'p', 'Verdict'];
  const cells = comparison.rows.map((row) => [
    String(row.index),
    row.direction,
    row.label,
    row.paired ? ratioCell(row.ratios.old) : bitrateCell(row.old),
    row.paired ? ratioCell(row.ratios.new) : bitrateCell(row.new),
    changeCell(row),
    row.p === null ? '' : formatP(row.p),
    verdictCell(row),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  // The last column is never padded, so a line has no trailing blanks and
  // colouring the verdict leaves the plain text underneath unchanged.
  const line = (row, paintVerdict = (text) => text) => row
    .map((cell, column) => {
      if (column === row.length - 1) return paintVerdict(cell);
      return column === 0 ? cell.padStart(widths[0]) : cell.padEnd(widths[column]);
    })
    .join('  ');
  const verdictPaint = { slower: paint.red.bold, failed: paint.red.bold, faster: paint.green, 'cannot-tell': paint.yellow };
  const tableRows = comparison.rows.map((row, position) => line(cells[position], verdictPaint[row.verdict]));

  return [
    `Receiver median bitrates, old run ${describeRun(comparison.old)} against new run ${describeRun(comparison.new)}.`,
    ...comparison.warnings.map((warning) => paint.yellow(`warning: ${warning}`)),
    '',
    line(header),
    ...tableRows,
    '',
    ...pairedText(comparison),
    ...apartText(comparison),
    ruleText(comparison),
    verdictText(comparison, paint),
  ].join('\n') + '\n';
}

// Which rows were judged on their paired ratios, marked * in the table.
function pairedText({ pairedWith, rows }) {
  const paired = rows.filter((row) => row.paired).length;
  if (!pairedWith || paired === 0) return [];
  return [`*: ${paired} of ${rows.length} cases judged on their per-round ratio to ${pairedWith} in each run (Old and New: the ratios' median and range), not on their bitrates: the machine's drift between the two runs cancels out.`];
}

// The cases the runs measured but cannot tell apart from before.
function apartText({ rows }) {
  const apart = rows.filter((row) => row.verdict === 'within-noise' || row.verdict === 'cannot-tell');
  if (apart.length === 0) return [];
  return [`Cannot tell apart from the old run: ${apart.map((row) => `case ${row.index}${row.direction === 'reverse' ? ' reverse' : ''}`).join(', ')}.`];
}

function ruleText({ threshold, strict, minRuns }) {
  const rule = `A case is slower (or faster) when, with ${minRuns} or more runs a side, a one-sided Mann-Whitney U test gives p <= ${ALPHA} and the whole 95% interval of the change lies beyond ${threshold}%.`;
  return strict
    ? `${rule} With --strict, a case with fewer runs is slower when its median dropped by more than ${threshold}% and the min..max ranges do not overlap.`
    : rule;
}

function verdictText(comparison, paint) {
  const { rows, threshold, minRuns } = comparison;
  const slower = rows.filter((row) => row.regressed).length;
  if (slower > 0) return paint.red.bold(`REGRESSED: ${slower} of ${rows.length} cases got slower than the old run.`);
  const unknown = rows.filter((row) => row.verdict === 'cannot-tell').length;
  if (unknown > 0) {
    return paint.yellow(`Cannot tell: ${unknown} of ${rows.length} cases have fewer than ${minRuns} runs on a side, too few to tell a change from noise. `
      + `Run both with --repeat ${minRuns} or more (--full repeats 3), or pass --strict to gate on the ${threshold}% threshold alone.`);
  }
  return paint.green(`No regression: no case got slower by more than ${threshold}% beyond the runs' noise.`);
}

function compareCase(oldCase, newCase, { threshold, strict, intervals, pairing }) {
  const known = newCase ?? oldCase;
  // On the paired ratios when both sides have enough of them; the
  // reference itself, and a case with too few, on its bitrates.
  const [oldRatios, newRatios] = oldCase && newCase && pairing
    ? [ratiosTo(oldCase, pairing.old(oldCase)), ratiosTo(newCase, pairing.new(newCase))]
    : [null, null];
  const paired = Boolean(oldRatios && newRatios && oldRatios.length >= MIN_RUNS && newRatios.length >= MIN_RUNS);
  const row = {
    key: caseKey(known),
    index: known.index,
    presets: known.presets,
    label: caseLabel(known),
    direction: known.direction,
    paired,
    old: oldCase ? bitrates(oldCase) : null,
    new: newCase ? bitrates(newCase) : null,
    deltaPercent: null,
    intervalPercent: null,
    p: null,
    verdict: null,
    regressed: false,
  };
  if (!oldCase) return { ...row, verdict: 'only-new' };
  if (!newCase) return { ...row, verdict: 'only-old' };
  if (!row.old) return { ...row, verdict: 'not-measured' };
  if (!row.new) {
    return newCase.status === 'failed' ? { ...row, verdict: 'failed', regressed: true } : { ...row, verdict: 'not-measured' };
  }
  if (paired) {
    const ratios = { old: ratioSide(oldRatios), new: ratioSide(newRatios) };
    return { ...row, ratios, ...judge(ratios.old, ratios.new, threshold, intervals) };
  }
  const deltaPercent = ((row.new.median - row.old.median) / row.old.median) * 100;
  if (row.old.runs < MIN_RUNS || row.new.runs < MIN_RUNS) {
    if (!strict) return { ...row, deltaPercent, verdict: 'cannot-tell' };
    const verdict = rangeVerdict(row.old, row.new, deltaPercent, threshold);
    return { ...row, deltaPercent, verdict, regressed: verdict === 'slower' };
  }
  return { ...row, ...judge(row.old, row.new, threshold, intervals) };
}

// The rule on two sets of values (bitrates, or paired ratios), each
// { median, values }: the change of the median, its interval, the rank
// test and the verdict.
function judge(before, after, threshold, intervals) {
  const deltaPercent = ((after.median - before.median) / before.median) * 100;
  const lower = deltaPercent < 0;
  const p = mannWhitneyP(before.values, after.values, { lower });
  const significant = p <= ALPHA;
  if (!significant && intervals === 'when-significant') return { deltaPercent, p, verdict: 'within-noise' };
  const { low, high } = bootstrapRatioInterval(before.values, after.values);
  const intervalPercent = { low: (low - 1) * 100, high: (high - 1) * 100 };
  let verdict = significant ? 'within-threshold' : 'within-noise';
  if (significant && lower && intervalPercent.high < -threshold) verdict = 'slower';
  if (significant && !lower && intervalPercent.low > threshold) verdict = 'faster';
  return { deltaPercent, intervalPercent, p, verdict, regressed: verdict === 'slower' };
}

// A case's per-round ratios to its run's reference; null for the
// reference itself or a case without one.
function ratiosTo(caseResult, reference) {
  if (!reference || reference === caseResult || caseResult.status !== 'ok') return null;
  return pairedRatios(caseResult.runs, reference.runs);
}

function ratioSide(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return { median: sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2, values };
}

// --strict with fewer than MIN_RUNS a side: the medians moved by more than
// the threshold and every new run is beyond every old one (one run a side:
// the threshold alone).
function rangeVerdict(before, after, deltaPercent, threshold) {
  if (deltaPercent < -threshold) return after.max < before.min ? 'slower' : 'within-spread';
  if (deltaPercent > threshold) return after.min > before.max ? 'faster' : 'within-spread';
  return 'within-threshold';
}

// `values` are the ok runs' receiver bitrates the test ranks.
function bitrates(caseResult) {
  if (caseResult.status !== 'ok' || !caseResult.receiver) return null;
  const { bits_per_second: median, min, max, cv } = caseResult.receiver;
  const values = caseResult.runs.filter((run) => run.status === 'ok' && run.receiver).map((run) => run.receiver.bits_per_second);
  return { median, min, max, cv, runs: values.length, values };
}

// Cases match by what they ran (the chain, or the reference row) and
// direction. The same case listed twice in cases.js matches in order: the
// first old one with the first new one.
export function caseKey(caseResult) {
  return `${caseResult.direction} ${JSON.stringify(caseDefinition(caseResult))}`;
}

function groupByKey(cases) {
  const groups = new Map();
  for (const caseResult of cases) {
    const key = caseKey(caseResult);
    groups.set(key, [...(groups.get(key) ?? []), caseResult]);
  }
  return groups;
}

function runSummary(result) {
  return {
    startedAt: result.startedAt,
    repeat: result.options.repeat,
    rounds: result.rounds,
    complete: result.complete,
  };
}

// Numbers from two machines, Node builds or run lengths measure those
// differences as much as the code; say so rather than refuse, since a
// person may compare them on purpose.
function differences(oldResult, newResult) {
  const facts = [
    ['engine', (result) => result.options.engine],
    ['CPU', (result) => result.environment?.cpu?.model],
    ['Node.js', (result) => result.environment?.node?.node],
    ['OpenSSL', (result) => result.environment?.node?.openssl],
    ['duration', (result) => result.options.duration],
    ['parallel streams', (result) => result.options.parallel],
  ];
  const warnings = [];
  for (const [name, read] of facts) {
    const [before, after] = [read(oldResult), read(newResult)];
    if (before !== after) warnings.push(`${name} differs: ${before ?? 'unknown'} in old, ${after ?? 'unknown'} in new`);
  }
  for (const [side, result] of [['old', oldResult], ['new', newResult]]) {
    if (result.complete === false) warnings.push(`the ${side} run was cut short; its missing cases are not measured`);
  }
  return warnings;
}

// A paired row's side: the median of its per-round ratios to the
// reference, with their range, '0.09 x (0.03..0.35)'.
function ratioCell({ median, values }) {
  return `${formatFixed(median, 2)} x (${formatFixed(Math.min(...values), 2)}..${formatFixed(Math.max(...values), 2)})`;
}

function bitrateCell(side) {
  if (!side) return '-';
  const median = formatBitrate(side.median);
  if (side.runs < 2) return median;
  return `${median} (${formatBitrateIn(side.min, side.median)}..${formatBitrateIn(side.max, side.median)})`;
}

// '-32.8% [-41.0%, -20.3%]': the change of the median and, when the test
// could be made, its 95 % interval.
function changeCell(row) {
  if (row.deltaPercent === null) return '';
  const change = signedPercent(row.deltaPercent);
  return row.intervalPercent ? `${change} [${signedPercent(row.intervalPercent.low)}, ${signedPercent(row.intervalPercent.high)}]` : change;
}

function signedPercent(value) {
  return `${value > 0 ? '+' : ''}${formatFixed(value, 1)}%`;
}

function formatP(p) {
  return p < 0.001 ? '<0.001' : formatFixed(p, 3);
}

function verdictCell(row) {
  if (row.paired) return `${VERDICT_TEXT[row.verdict]} *`;
  if (row.verdict !== 'cannot-tell') return VERDICT_TEXT[row.verdict];
  return `cannot tell (${row.old.runs} vs ${row.new.runs} ${row.new.runs === 1 && row.old.runs === 1 ? 'run' : 'runs'})`;
}

function describeRun({ startedAt, rounds }) {
  return `${startedAt} (${rounds} ${rounds === 1 ? 'round' : 'rounds'})`;
}
