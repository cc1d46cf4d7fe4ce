import { Chalk } from 'chalk';
import { inputError } from '../errors.js';
import { upgradeResult } from '../result.js';
import { caseDefinition, caseLabel } from './case-label.js';
import { busyMachine, machineChange, machineNoiseCv, relayCpuChange } from './machine-change.js';
import { ALPHA, bootstrapRatioInterval, mannWhitneyP, MIN_RUNS } from '../statistics/significance.js';
import { formatFixed } from './units.js';
import { directionsOf, figureFor, workloadOf } from './workload.js';
import { coefficientOfVariation, pairedRatios } from '../statistics/summaries.js';

// Two result objects (docs/result.md), case by case: did the new run get
// slower than the old one? Both `cipherbench compare` and `run --baseline`
// print this and exit by its `regressed`. docs/statistics.md tells users.
//
// The rule, on the figure of the ok runs the ranking uses (the receiver
// bitrate; requests per second for the request workload), as criterion.rs
// decides a change:
//   with MIN_RUNS (3) or more runs a side, 'slower' when a one-sided exact
//   Mann-Whitney U test says the new runs rank below the old ones
//   (p <= 0.05) AND the whole 95 % bootstrap interval of the change of the
//   median lies beyond -threshold AND below the whole interval of the
//   machine's own change between the runs (machine-change.js: what the
//   `direct` runs of each saw); 'faster' mirrored. A change the machine's
//   interval reaches is the machine's ('machine-changed' when the machine
//   itself moved that way, else 'machine-noise'), and a noisy machine
//   raises the threshold to its noise floor's cv;
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

// With intervals 'when-significant', the bootstrap interval is computed
// only where the test found a change, the one place it decides the verdict
// (history makes a comparison per run and case: the verdicts stay the same,
// at a fraction of the time).
//
// Two runs of different workloads (workload.js), or with no direction in
// common, are refused with an input error: their figures measure
// different things. Runs that share a direction but not all are compared
// on the shared one, and `directions` says so.
export function compareResults(
  oldGiven,
  newGiven,
  { threshold = DEFAULT_THRESHOLD, strict = false, intervals = 'always' } = {},
) {
  const [oldResult, newResult] = [oldGiven, newGiven].map(upgradeResult);
  const workload = comparableWorkload(oldResult, newResult);
  const { shared, note: directions } = sharedDirections(oldResult, newResult);
  const inShared = (caseResult) => shared.includes(caseResult.direction);
  const machine = machineChange(oldResult, newResult, { directions: shared, figure: workload.figure });
  // A machine whose own runs spread by more than the threshold could make
  // a change that large on its own between two runs.
  const noiseCv = machineNoiseCv([oldResult, newResult], { figure: workload.figure });
  const effectiveThreshold = Math.max(threshold, noiseCv * 100);
  const oldByKey = groupByKey(oldResult.cases.filter(inShared));
  const busy = { old: busyMachine(oldResult), new: busyMachine(newResult) };
  const rule = {
    threshold: effectiveThreshold,
    strict,
    intervals,
    machine,
    busy,
    figure: workload.figure,
    pairing: sharedReference(oldResult, newResult),
  };
  const rows = newResult.cases.filter(inShared).map((newCase) => {
    const oldCase = oldByKey.get(caseKey(newCase))?.shift() ?? null;
    return compareCase(oldCase, newCase, rule);
  });
  // What is left was in the old file only (a --filter, or a removed case).
  for (const oldCases of oldByKey.values()) {
    for (const oldCase of oldCases) rows.push(compareCase(oldCase, null, rule));
  }
  return {
    threshold,
    effectiveThreshold,
    noiseCv,
    strict,
    minRuns: MIN_RUNS,
    workload: workload.description,
    kind: workload.kind,
    figure: workload.figure.title,
    directions,
    old: runSummary(oldResult),
    new: runSummary(newResult),
    machine,
    warnings: [...differences(oldResult, newResult), ...(machine ? [] : [NO_MACHINE])],
    pairedWith: rule.pairing ? rule.pairing.label : null,
    rows,
    regressed: rows.some((row) => row.regressed),
  };
}

const NO_MACHINE =
  'neither a noise floor nor a direct row with 2 or more runs on both sides: a change of the machine between the runs cannot be told from a change of the code (run both with the noise floor, the default)';

// The two runs' workload, or an input error saying how they differ.
function comparableWorkload(oldResult, newResult) {
  const [before, after] = [workloadOf(oldResult), workloadOf(newResult)];
  if (before.description !== after.description) {
    throw inputError(
      `cannot compare: the old run measured ${before.description}, the new one ${after.description}; compare two runs of one workload`,
    );
  }
  return after;
}

// { shared: the directions both runs measured, note: one line when one run
// measured a direction the other did not, else null }; an input error when
// they share none.
function sharedDirections(oldResult, newResult) {
  const [before, after] = [directionsOf(oldResult), directionsOf(newResult)];
  const shared = after.filter((direction) => before.includes(direction));
  const named = (directions) => directions.join(' and ');
  if (shared.length === 0 && before.length > 0 && after.length > 0) {
    throw inputError(
      `cannot compare: the old run measured the ${named(before)} direction, the new one ${named(after)}; compare two runs of one direction (--reverse, --both)`,
    );
  }
  if (shared.length === before.length && shared.length === after.length) return { shared, note: null };
  const [side, extra] = before.length > shared.length ? ['old', before] : ['new', after];
  return {
    shared,
    note: `Compared ${named(shared)} only: the ${side} run also measured ${named(extra.filter((direction) => !shared.includes(direction)))}.`,
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
    return (direction) =>
      result.cases.find((caseResult) => caseResult.index === to && caseResult.direction === direction) ?? null;
  };
  const [oldReference, newReference] = [referenceOf(oldResult), referenceOf(newResult)];
  if (!oldReference || !newReference) return null;
  const sample = oldResult.cases.find((caseResult) => caseResult.relative);
  const [oldCase, newCase] = [oldReference(sample.direction), newReference(sample.direction)];
  if (!oldCase || !newCase || caseKey(oldCase) !== caseKey(newCase)) return null;
  return {
    label: caseLabel(newCase),
    old: (caseResult) => oldReference(caseResult.direction),
    new: (caseResult) => newReference(caseResult.direction),
  };
}

export function formatComparison(comparison, { color = false } = {}) {
  const paint = new Chalk({ level: color ? 1 : 0 });
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
  const tableRows = comparison.rows.map((row, position) => line(cells[position], verdictPaint[row.verdict]));

  return (
    [
      `${comparison.figure}, old run ${describeRun(comparison.old)} against new run ${describeRun(comparison.new)}: ${comparison.workload}.`,
      ...(comparison.directions ? [comparison.directions] : []),
      ...machineText(comparison),
      ...comparison.warnings.map((warning) => paint.yellow(`warning: ${warning}`)),
      '',
      line(header),
      ...tableRows,
      '',
      ...pairedText(comparison),
      ...apartText(comparison),
      ruleText(comparison),
      verdictText(comparison, paint),
    ].join('\n') + '\n'
  );
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

function compareCase(oldCase, newCase, { threshold, strict, intervals, pairing, machine, busy, figure }) {
  const known = newCase ?? oldCase;
  // On the paired ratios when both sides have enough of them; the
  // reference itself, and a case with too few, on its bitrates.
  const [oldRatios, newRatios] =
    oldCase && newCase && pairing
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
    old: oldCase ? figures(oldCase, figure) : null,
    new: newCase ? figures(newCase, figure) : null,
    deltaPercent: null,
    intervalPercent: null,
    p: null,
    verdict: null,
    regressed: false,
    relayCpu: null,
    disturbedIn: null,
  };
  if (!oldCase) return { ...row, verdict: 'only-new' };
  if (!newCase) return { ...row, verdict: 'only-old' };
  if (!row.old) return { ...row, verdict: 'not-measured' };
  if (!row.new) {
    return newCase.status === 'failed'
      ? { ...row, verdict: 'failed', regressed: true }
      : { ...row, verdict: 'not-measured' };
  }
  if (paired) {
    const ratios = { old: ratioSide(oldRatios), new: ratioSide(newRatios) };
    // The ratio to a case of the same run cancels the machine already.
    return { ...row, ratios, ...judge(ratios.old, ratios.new, { threshold, intervals, machine: null }) };
  }
  const deltaPercent = ((row.new.median - row.old.median) / row.old.median) * 100;
  if (row.old.runs < MIN_RUNS || row.new.runs < MIN_RUNS) {
    if (!strict) return { ...row, deltaPercent, verdict: 'cannot-tell' };
    const ranged = rangeVerdict(row.old, row.new, deltaPercent, threshold);
    const change = { low: deltaPercent, high: deltaPercent };
    const verdict =
      ['slower', 'faster'].includes(ranged) && machine && !beyondMachine(change, machine, ranged === 'slower')
        ? machineVerdict(machine, ranged === 'slower')
        : ranged;
    return { ...row, deltaPercent, verdict, regressed: verdict === 'slower' };
  }
  return disturbed(
    starved(
      { ...row, ...judge(row.old, row.new, { threshold, intervals, machine }) },
      oldCase,
      newCase,
      threshold,
      busy,
    ),
    oldCase,
    newCase,
  );
}

// A change in the direction a disturbed run moves its case is the
// machine's: a case that got slower in a run where other processes took
// the CPU it needed (docs/statistics.md, "What disturbed a run"), or faster
// than a run where they did, measured its neighbours, as far as the CPU
// they took can reach. Beside a busy loop, cases lost 1.1 to 1.3 times the
// share of the machine the loop took (their interval's near end against
// the largest share of their disturbed runs, 2026-11-28): DISTURBED_REACH
// times that share, at most MOST_DISTURBED, is what it may explain. A
// case slower than that, or slower than a disturbed old run, is slower.
const DISTURBED_REACH = 1.5;
const MOST_DISTURBED = 0.9;

function disturbed(row, oldCase, newCase) {
  if (row.verdict !== 'slower' && row.verdict !== 'faster') return row;
  const side = row.verdict === 'slower' ? 'new' : 'old';
  const caseResult = side === 'new' ? newCase : oldCase;
  if (!caseResult.disturbed) return row;
  const taken = Math.max(
    0,
    ...caseResult.runs.filter((run) => run.disturbed).map((run) => run.disturbance?.others ?? 0),
  );
  const reach = Math.min(DISTURBED_REACH * taken, MOST_DISTURBED);
  // Slower: the new figure fell by up to `reach`; faster: the old one did,
  // which raises new over old by up to reach / (1 - reach).
  const explained =
    side === 'new' ? row.intervalPercent.high >= -reach * 100 : row.intervalPercent.low <= (reach / (1 - reach)) * 100;
  return explained ? { ...row, verdict: 'machine-changed', regressed: false, disturbedIn: side } : row;
}

// A change the direct runs did not show can still be the machine's: on a
// machine with no idle CPU, other work takes CPU from the relays, and a
// relay carries fewer bytes with the same code. When the relays' share of
// a core moved the same way, beyond the threshold, in the run whose
// machine was busy, and the case's interval reaches that change of its
// CPU (the CPU it lost can explain the bytes it lost), the change is the
// machine's; a slower relay of the same CPU share, one that left CPU idle,
// or one that lost far more bytes than CPU, stays slower.
function starved(row, oldCase, newCase, threshold, busy) {
  if (row.verdict !== 'slower' && row.verdict !== 'faster') return row;
  const lower = row.verdict === 'slower';
  if (!(lower ? busy.new : busy.old)) return row;
  const cpu = relayCpuChange(oldCase, newCase);
  if (!cpu || !(lower ? cpu.intervalPercent.high < -threshold : cpu.intervalPercent.low > threshold)) return row;
  if (beyondMachine(row.intervalPercent, cpu, lower)) return row;
  return { ...row, verdict: 'machine-changed', regressed: false, relayCpu: cpu };
}

// The rule on two sets of values (bitrates, or paired ratios), each
// { median, values }: the change of the median, its interval, the rank
// test and the verdict.
function judge(before, after, { threshold, intervals, machine }) {
  const deltaPercent = ((after.median - before.median) / before.median) * 100;
  const lower = deltaPercent < 0;
  const p = mannWhitneyP(before.values, after.values, { lower });
  const significant = p <= ALPHA;
  if (!significant && intervals === 'when-significant') return { deltaPercent, p, verdict: 'within-noise' };
  const { low, high } = bootstrapRatioInterval(before.values, after.values);
  const intervalPercent = { low: (low - 1) * 100, high: (high - 1) * 100 };
  let verdict = significant ? 'within-threshold' : 'within-noise';
  if (significant && machine && !beyondMachine(intervalPercent, machine, lower)) {
    verdict = machineVerdict(machine, lower);
  } else if (significant && lower && intervalPercent.high < -threshold) {
    verdict = 'slower';
  } else if (significant && !lower && intervalPercent.low > threshold) {
    verdict = 'faster';
  }
  return { deltaPercent, intervalPercent, p, verdict, regressed: verdict === 'slower' };
}

// Whether a change's whole interval lies past the machine's whole
// interval, on the side it moved: more than the machine could have done.
function beyondMachine(change, machine, lower) {
  return lower ? change.high < machine.intervalPercent.low : change.low > machine.intervalPercent.high;
}

// A change the machine's interval reaches: the machine's, when the
// machine itself moved that way; else within what its runs spread over.
function machineVerdict(machine, lower) {
  const moved = lower ? machine.intervalPercent.high < 0 : machine.intervalPercent.low > 0;
  return moved ? 'machine-changed' : 'machine-noise';
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

// `values` are the ok runs' figures the test ranks (receiver bitrates, or
// requests per second).
function figures(caseResult, figure) {
  const summary = caseResult.status === 'ok' ? figure.summary(caseResult) : null;
  if (!summary) return null;
  const values = caseResult.runs
    .filter((run) => run.status === 'ok')
    .map(figure.ofRun)
    .filter((value) => value !== null);
  const { median, min, max } = summary;
  return { median, min, max, cv: summary.cv ?? coefficientOfVariation(values), runs: values.length, values };
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

// Numbers from two machines or Node builds measure those differences as
// much as the code; say so rather than refuse, since a person may compare
// them on purpose (a new Node.js is what a comparison is often about).
function differences(oldResult, newResult) {
  const facts = [
    ['engine', (result) => result.options.engine],
    ['CPU', (result) => result.environment?.cpu?.model],
    ['Node.js', (result) => result.environment?.node?.node],
    ['OpenSSL', (result) => result.environment?.node?.openssl],
  ];
  const warnings = [];
  for (const [name, read] of facts) {
    const [before, after] = [read(oldResult), read(newResult)];
    if (before !== after) warnings.push(`${name} differs: ${before ?? 'unknown'} in old, ${after ?? 'unknown'} in new`);
  }
  for (const [side, result] of [
    ['old', oldResult],
    ['new', newResult],
  ]) {
    if (result.complete === false) warnings.push(`the ${side} run was cut short; its missing cases are not measured`);
  }
  return warnings;
}

// A paired row's side: the median of its per-round ratios to the
// reference, with their range, '0.09 x (0.03..0.35)'.
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
