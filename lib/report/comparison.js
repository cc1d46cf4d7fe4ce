import { Chalk } from 'chalk';
import { upgradeResult } from '../result.js';
import { caseDefinition, caseLabel } from './case-label.js';
import { ALPHA, bootstrapRatioInterval, mannWhitneyP, MIN_RUNS } from './significance.js';
import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';

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

const VERDICT_TEXT = {
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
  const rule = { threshold, strict, intervals };
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
    rows,
    regressed: rows.some((row) => row.regressed),
  };
}

export function formatComparison(comparison, { color = false } = {}) {
  const paint = new Chalk({ level: color ? 1 : 0 });
  const header = ['Case', 'Direction', 'Chain', 'Old', 'New', 'Change [95% CI]', 'p', 'Verdict'];
  const cells = comparison.rows.map((row) => [
    String(row.index),
    row.direction,
    row.label,
    bitrateCell(row.old),
    bitrateCell(row.new),
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
    ruleText(comparison),
    verdictText(comparison, paint),
  ].join('\n') + '\n';
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

function compareCase(oldCase, newCase, { threshold, strict, intervals }) {
  const known = newCase ?? oldCase;
  const row = {
    key: caseKey(known),
    index: known.index,
    presets: known.presets,
    label: caseLabel(known),
    direction: known.direction,
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
  const deltaPercent = ((row.new.median - row.old.median) / row.old.median) * 100;
  if (row.old.runs < MIN_RUNS || row.new.runs < MIN_RUNS) {
    if (!strict) return { ...row, deltaPercent, verdict: 'cannot-tell' };
    const verdict = rangeVerdict(row.old, row.new, deltaPercent, threshold);
    return { ...row, deltaPercent, verdict, regressed: verdict === 'slower' };
  }
  const lower = deltaPercent < 0;
  const p = mannWhitneyP(row.old.values, row.new.values, { lower });
  const significant = p <= ALPHA;
  if (!significant && intervals === 'when-significant') return { ...row, deltaPercent, p, verdict: 'within-noise' };
  const { low, high } = bootstrapRatioInterval(row.old.values, row.new.values);
  const intervalPercent = { low: (low - 1) * 100, high: (high - 1) * 100 };
  let verdict = significant ? 'within-threshold' : 'within-noise';
  if (significant && lower && intervalPercent.high < -threshold) verdict = 'slower';
  if (significant && !lower && intervalPercent.low > threshold) verdict = 'faster';
  return { ...row, deltaPercent, intervalPercent, p, verdict, regressed: verdict === 'slower' };
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
  if (row.verdict !== 'cannot-tell') return VERDICT_TEXT[row.verdict];
  return `cannot tell (${row.old.runs} vs ${row.new.runs} ${row.new.runs === 1 && row.old.runs === 1 ? 'run' : 'runs'})`;
}

function describeRun({ startedAt, repeat }) {
  return `${startedAt} (${repeat} ${repeat === 1 ? 'run' : 'runs'} a case)`;
}
