import { Chalk } from 'chalk';
import { caseDefinition, caseLabel } from './case-label.js';
import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';

// Two result objects (docs/result.md), case by case: did the new run get
// slower than the old one? Both `cipherbench compare` and `run --baseline`
// print this and exit by its `regressed`. docs/statistics.md tells users.
//
// The rule, on the receiver median (the bitrate the ranking uses):
//   delta = (new median - old median) / old median, in percent;
//   'slower' when delta < -threshold AND new max < old min,
//   'faster' when delta > +threshold AND new min > old max,
// i.e. the medians moved by more than the threshold and the two min..max
// ranges do not overlap: every new run is slower than every old one.
//
// Why both: the threshold says how much a person cares about; disjoint
// ranges say the move is not just noise. For N runs on each side, "every new
// run below every old run" is the most extreme outcome of a one-sided exact
// rank test (Mann-Whitney U = 0): if the code changed nothing, its chance is
// 1 / C(2N, N), that is 5 % for --repeat 3 and 0.4 % for --repeat 5, with no
// assumption of a normal distribution. benchstat asks for a rank test too,
// but at p < 0.05 two-sided, which 3 runs a side can never reach; hyperfine
// leaves the judgement to the reader with mean ± σ. With a single run a side
// the ranges are points, and the threshold alone guards against noise.
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
  failed: 'FAILED now',
  'not-measured': 'not measured',
  'only-old': 'only in old',
  'only-new': 'only in new',
};

export function compareResults(oldResult, newResult, { threshold = DEFAULT_THRESHOLD } = {}) {
  const oldByKey = groupByKey(oldResult.cases);
  const rows = newResult.cases.map((newCase) => {
    const oldCase = oldByKey.get(caseKey(newCase))?.shift() ?? null;
    return compareCase(oldCase, newCase, threshold);
  });
  // What is left was in the old file only (a --filter, or a removed case).
  for (const oldCases of oldByKey.values()) {
    for (const oldCase of oldCases) rows.push(compareCase(oldCase, null, threshold));
  }
  return {
    threshold,
    old: runSummary(oldResult),
    new: runSummary(newResult),
    warnings: differences(oldResult, newResult),
    rows,
    regressed: rows.some((row) => row.regressed),
  };
}

export function formatComparison(comparison, { color = false } = {}) {
  const paint = new Chalk({ level: color ? 1 : 0 });
  const header = ['Case', 'Direction', 'Chain', 'Old', 'New', 'Delta', 'Verdict'];
  const cells = comparison.rows.map((row) => [
    String(row.index),
    row.direction,
    row.label,
    bitrateCell(row.old),
    bitrateCell(row.new),
    row.deltaPercent === null ? '' : `${row.deltaPercent > 0 ? '+' : ''}${formatFixed(row.deltaPercent, 1)}%`,
    VERDICT_TEXT[row.verdict],
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
  const verdictPaint = { slower: paint.red.bold, failed: paint.red.bold, faster: paint.green };
  const tableRows = comparison.rows.map((row, position) => line(cells[position], verdictPaint[row.verdict]));

  const { threshold } = comparison;
  const slower = comparison.rows.filter((row) => row.regressed).length;
  const verdict = slower > 0
    ? paint.red.bold(`REGRESSED: ${slower} of ${comparison.rows.length} cases got slower than the old run.`)
    : paint.green(`No regression: no case got slower by more than ${threshold}% beyond the runs' spread.`);
  return [
    `Receiver median bitrates, old run ${describeRun(comparison.old)} against new run ${describeRun(comparison.new)}.`,
    ...comparison.warnings.map((warning) => paint.yellow(`warning: ${warning}`)),
    '',
    line(header),
    ...tableRows,
    '',
    `A case is slower (or faster) only when its median moved by more than ${threshold}% and the old and new min..max ranges do not overlap.`,
    verdict,
  ].join('\n') + '\n';
}

function compareCase(oldCase, newCase, threshold) {
  const known = newCase ?? oldCase;
  const row = {
    index: known.index,
    presets: known.presets,
    label: caseLabel(known),
    direction: known.direction ?? 'forward',
    old: oldCase ? bitrates(oldCase) : null,
    new: newCase ? bitrates(newCase) : null,
    deltaPercent: null,
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
  const verdict = deltaPercent < -threshold
    ? (row.new.max < row.old.min ? 'slower' : 'within-spread')
    : deltaPercent > threshold
      ? (row.new.min > row.old.max ? 'faster' : 'within-spread')
      : 'within-threshold';
  return { ...row, deltaPercent, verdict, regressed: verdict === 'slower' };
}

// A file from before repeats (no runs[], no min/max) is one run: its
// bitrate is its own median, minimum and maximum.
function bitrates(caseResult) {
  if (caseResult.status !== 'ok' || !caseResult.receiver) return null;
  const { bits_per_second: median, min = median, max = median, cv = 0 } = caseResult.receiver;
  const runs = caseResult.runs ? caseResult.runs.filter((run) => run.status === 'ok').length : 1;
  return { median, min, max, cv, runs };
}

// Cases match by what they ran (the chain, or the reference row) and
// direction. The same case listed twice in cases.js matches in order: the
// first old one with the first new one.
function caseKey(caseResult) {
  return `${caseResult.direction ?? 'forward'} ${JSON.stringify(caseDefinition(caseResult))}`;
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
    repeat: result.options?.repeat ?? 1,
    complete: result.complete,
  };
}

// Numbers from two machines, Node builds or run lengths measure those
// differences as much as the code; say so rather than refuse, since a
// person may compare them on purpose.
function differences(oldResult, newResult) {
  const facts = [
    ['CPU', (result) => result.environment?.cpu?.model],
    ['Node.js', (result) => result.environment?.node?.node],
    ['OpenSSL', (result) => result.environment?.node?.openssl],
    ['duration', (result) => result.options?.duration],
    ['parallel streams', (result) => result.options?.parallel],
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

function describeRun({ startedAt, repeat }) {
  return `${startedAt} (${repeat} ${repeat === 1 ? 'run' : 'runs'} a case)`;
}
