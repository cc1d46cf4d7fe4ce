// @ts-check
import { Chalk } from 'chalk';
import { ALPHA } from '../statistics/significance.js';
import { formatFixed } from './units.js';
import { figureFor } from './sections/index.js';

// compareResults' verdict (comparison.js) as `cipherbench compare` and
// `run --baseline` print it: the runs and the workload, what the machine
// did between them, a row per case with its change, p and verdict, then
// the rule and the one-line verdict. It reads the comparison only.

// The words for each verdict, in compare's table and history's alike.
export const VERDICT_TEXT = {
  slower: 'slower',
  faster: 'faster',
  'machine-changed': 'the machine changed',
  'machine-noise': "within the machine's noise",
  'within-threshold': 'within threshold',
  'within-spread': 'within spread',
  'within-noise': 'within noise',
  'cannot-tell': 'cannot tell',
  failed: 'FAILED now',
  'not-measured': 'not measured',
  'only-old': 'only in old',
  'only-new': 'only in new',
};

export function formatComparison(comparison, { color = false } = {}) {
  const paint = new Chalk({ level: color ? 1 : 0 });
  return (
    [
      `${comparison.figure}, old run ${describeRun(comparison.old)} against new run ${describeRun(comparison.new)}: ${comparison.workload}.`,
      ...(comparison.directions ? [comparison.directions] : []),
      ...machineText(comparison),
      ...comparison.warnings.map((warning) => paint.yellow(`warning: ${warning}`)),
      '',
      ...tableLines(comparison, paint),
      '',
      ...pairedText(comparison),
      ...apartText(comparison),
      ruleText(comparison),
      verdictText(comparison, paint),
    ].join('\n') + '\n'
  );
}

// The header and a line per case, each column as wide as its widest cell,
// the verdict coloured by what it says.
function tableLines(comparison, paint) {
  const figure = figureFor(comparison.kind);
  const header = ['Case', 'Direction', 'Chain', 'Old', 'New', 'Change [95% CI]', 'p', 'Verdict'];
  const cells = comparison.rows.map((row) => [
    String(row.index),
    row.direction,
    row.label,
    row.paired ? ratioCell(row.ratios.old) : figureCell(row.old, figure),
    row.paired ? ratioCell(row.ratios.new) : figureCell(row.new, figure),
    changeCell(row),
    row.p === null ? '' : formatP(row.p),
    verdictCell(row, comparison.machine),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  // The last column is never padded, so a line has no trailing blanks and
  // colouring the verdict leaves the plain text underneath unchanged.
  const line = (row, paintVerdict = (text) => text) =>
    row
      .map((cell, column) => {
        if (column === row.length - 1) return paintVerdict(cell);
        return column === 0 ? cell.padStart(widths[0]) : cell.padEnd(widths[column]);
      })
      .join('  ');
  const verdictPaint = {
    slower: paint.red.bold,
    failed: paint.red.bold,
    faster: paint.green,
    'cannot-tell': paint.yellow,
    'machine-changed': paint.yellow,
  };
  return [line(header), ...comparison.rows.map((row, position) => line(cells[position], verdictPaint[row.verdict]))];
}

// Which rows were judged on their paired ratios, marked * in the table.
function pairedText({ pairedWith, rows }) {
  const paired = rows.filter((row) => row.paired).length;
  if (!pairedWith || paired === 0) return [];
  return [
    `*: ${paired} of ${rows.length} cases judged on their per-round ratio to ${pairedWith} in each run (Old and New: the ratios' median and range), not on their bitrates: the machine's drift between the two runs cancels out.`,
  ];
}

// The cases the runs measured but cannot tell apart from before.
function apartText({ rows }) {
  const apart = rows.filter((row) => ['within-noise', 'machine-noise', 'cannot-tell'].includes(row.verdict));
  if (apart.length === 0) return [];
  return [
    `Cannot tell apart from the old run: ${apart.map((row) => `case ${row.index}${row.direction === 'reverse' ? ' reverse' : ''}`).join(', ')}.`,
  ];
}

// What the direct runs of each side saw: the machine's own change between
// the two runs, from each source, and what it does to the threshold.
function machineText({ machine, threshold, effectiveThreshold }) {
  const lines = (machine?.sources ?? []).map((source) => {
    const { format } = figureFor(source.figure);
    return (
      `The machine, as ${source.name} saw it: ${format(source.old.median)} (cv ${percent(source.old.cv)}) in the old run, ` +
      `${format(source.new.median)} (cv ${percent(source.new.cv)}) in the new: ${signedPercent(source.deltaPercent)} [${signedPercent(source.intervalPercent.low)}, ${signedPercent(source.intervalPercent.high)}].`
    );
  });
  if (effectiveThreshold > threshold)
    lines.push(
      `The threshold is ${thresholdText(effectiveThreshold)}%, not ${threshold}%: the direct runs' own cv, a change the machine makes on its own.`,
    );
  return lines;
}

// 5 as given; a threshold raised to a cv to one decimal, 13.8.
function thresholdText(value) {
  return Number.isInteger(value) ? String(value) : formatFixed(value, 1);
}

function percent(fraction) {
  return `${formatFixed(fraction * 100, 1)}%`;
}

function ruleText({ effectiveThreshold, strict, minRuns, machine }) {
  const beyond = machine
    ? `beyond ${thresholdText(effectiveThreshold)}% and beyond the machine's own change [${signedPercent(machine.intervalPercent.low)}, ${signedPercent(machine.intervalPercent.high)}]`
    : `beyond ${thresholdText(effectiveThreshold)}%`;
  const rule = `A case is slower (or faster) when, with ${minRuns} or more runs a side, a one-sided Mann-Whitney U test gives p <= ${ALPHA} and the whole 95% interval of the change lies ${beyond}.`;
  return strict
    ? `${rule} With --strict, a case with fewer runs is slower when its median dropped by more than ${thresholdText(effectiveThreshold)}% and the min..max ranges do not overlap.`
    : rule;
}

function verdictText(comparison, paint) {
  const { rows, minRuns, machine } = comparison;
  const threshold = thresholdText(comparison.effectiveThreshold);
  const slower = rows.filter((row) => row.regressed).length;
  if (slower > 0) return paint.red.bold(`REGRESSED: ${slower} of ${rows.length} cases got slower than the old run.`);
  const unknown = rows.filter((row) => row.verdict === 'cannot-tell').length;
  if (unknown > 0) {
    return paint.yellow(
      `Cannot tell: ${unknown} of ${rows.length} cases have fewer than ${minRuns} runs on a side, too few to tell a change from noise. ` +
        `Run both with --repeat ${minRuns} or more (--full repeats 3), or pass --strict to gate on the ${threshold}% threshold alone.`,
    );
  }
  const withMachine = rows.filter((row) => row.verdict === 'machine-changed');
  if (withMachine.length > 0) {
    const starved = withMachine.filter((row) => row.relayCpu).length;
    const disturbedRows = withMachine.filter((row) => row.disturbedIn).length;
    const withDirect = withMachine.length - starved - disturbedRows;
    const parts = [
      ...(withDirect > 0
        ? [`${withDirect} of ${rows.length} cases moved with the direct runs (${signedPercent(machine.deltaPercent)})`]
        : []),
      ...(starved > 0
        ? [`${starved} of ${rows.length} cases moved with the CPU their relays got from a busy machine`]
        : []),
      ...(disturbedRows > 0
        ? [`${disturbedRows} of ${rows.length} cases moved in a run other processes disturbed`]
        : []),
    ];
    return paint.yellow(
      `The machine changed between the runs: ${parts.join('; ')}; no case moved beyond that. ` +
        'No change of the code shows; compare runs made back to back on a quiet machine.',
    );
  }
  return paint.green(
    `No regression: no case got slower by more than ${threshold}% beyond the runs' noise${machine ? " and the machine's" : ''}.`,
  );
}

// A paired row's side: the median of its per-round ratios to the
// anchor, with their range, '0.09 x (0.03..0.35)'.
function ratioCell({ median, values }) {
  return `${formatFixed(median, 2)} x (${formatFixed(Math.min(...values), 2)}..${formatFixed(Math.max(...values), 2)})`;
}

function figureCell(side, figure) {
  if (!side) return '-';
  const median = figure.format(side.median);
  if (side.runs < 2) return median;
  return `${median} (${figure.formatIn(side.min, side.median)}..${figure.formatIn(side.max, side.median)})`;
}

// '-32.8% [-41.0%, -20.3%]': the change of the median and, when the test
// could be made, its 95 % interval.
function changeCell(row) {
  if (row.deltaPercent === null) return '';
  const change = signedPercent(row.deltaPercent);
  return row.intervalPercent
    ? `${change} [${signedPercent(row.intervalPercent.low)}, ${signedPercent(row.intervalPercent.high)}]`
    : change;
}

function signedPercent(value) {
  return `${value > 0 ? '+' : ''}${formatFixed(value, 1)}%`;
}

function formatP(p) {
  return p < 0.001 ? '<0.001' : formatFixed(p, 3);
}

function verdictCell(row, machine) {
  if (row.paired) return `${VERDICT_TEXT[row.verdict]} *`;
  if (row.verdict === 'machine-changed' && row.disturbedIn)
    return `the machine changed: disturbed in the ${row.disturbedIn} run`;
  if (row.verdict === 'machine-changed' && row.relayCpu)
    return `the machine changed: relays got ${signedPercent(row.relayCpu.deltaPercent)} CPU`;
  if (row.verdict === 'machine-changed') return `the machine changed by ${signedPercent(machine.deltaPercent)}`;
  if (row.verdict !== 'cannot-tell') return VERDICT_TEXT[row.verdict];
  return `cannot tell (${row.old.runs} vs ${row.new.runs} ${row.new.runs === 1 && row.old.runs === 1 ? 'run' : 'runs'})`;
}

function describeRun({ startedAt, rounds }) {
  return `${startedAt} (${rounds} ${rounds === 1 ? 'round' : 'rounds'})`;
}
