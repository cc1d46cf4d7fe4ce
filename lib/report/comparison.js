// @ts-check
import { inputError } from '../errors.js';
import { upgradeResult } from '../result.js';
import { caseDefinition, caseLabel } from './case-label.js';
import { busyMachine, machineChange, machineNoiseCv, relayCpuChange } from './machine-change.js';
import { ALPHA, bootstrapRatioInterval, mannWhitneyP, MIN_RUNS } from '../statistics/significance.js';
import { directionsOf, workloadOf } from './workload.js';
import { coefficientOfVariation, pairedRatios } from '../statistics/summaries.js';

// Two result objects (docs/result.md), case by case: did the new run get
// slower than the old one? Both `cipherbench compare` and `run --baseline`
// print this (comparison-text.js) and exit by its `regressed`; `history`
// judges each change by it. docs/statistics.md tells users. The verdict
// only: nothing here prints.
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
  const rule = {
    threshold: effectiveThreshold,
    strict,
    intervals,
    machine,
    busy: { old: busyMachine(oldResult), new: busyMachine(newResult) },
    figure: workload.figure,
    pairing: sharedAnchor(oldResult, newResult),
  };
  const rows = pairedRows(oldResult.cases.filter(inShared), newResult.cases.filter(inShared), rule);
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

// Each new case judged against the old case it matches (caseKey), then
// what is left of the old file: cases it alone has (a --filter, or a
// removed case).
function pairedRows(oldCases, newCases, rule) {
  const oldByKey = groupByKey(oldCases);
  const rows = newCases.map((newCase) => compareCase(oldByKey.get(caseKey(newCase))?.shift() ?? null, newCase, rule));
  for (const left of oldByKey.values()) {
    for (const oldCase of left) rows.push(compareCase(oldCase, null, rule));
  }
  return rows;
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
// between the two runs, as an anchor measured beside the case sees the
// same neighbours. { label, old(caseResult), new(caseResult) } giving each
// side's anchor, or null.
function sharedAnchor(oldResult, newResult) {
  const anchorOf = (result) => {
    const to = result.cases.find((caseResult) => caseResult.relative)?.relative.to;
    if (to === undefined || !(result.rounds > 0)) return null;
    return (direction) =>
      result.cases.find((caseResult) => caseResult.index === to && caseResult.direction === direction) ?? null;
  };
  const [oldAnchor, newAnchor] = [anchorOf(oldResult), anchorOf(newResult)];
  if (!oldAnchor || !newAnchor) return null;
  const sample = oldResult.cases.find((caseResult) => caseResult.relative);
  const [oldCase, newCase] = [oldAnchor(sample.direction), newAnchor(sample.direction)];
  if (!oldCase || !newCase || caseKey(oldCase) !== caseKey(newCase)) return null;
  return {
    label: caseLabel(newCase),
    old: (caseResult) => oldAnchor(caseResult.direction),
    new: (caseResult) => newAnchor(caseResult.direction),
  };
}

function compareCase(oldCase, newCase, { threshold, strict, intervals, pairing, machine, busy, figure }) {
  const known = newCase ?? oldCase;
  // On the paired ratios when both sides have enough of them; the
  // anchor itself, and a case with too few, on its bitrates.
  const [oldRatios, newRatios] =
    oldCase && newCase && pairing
      ? [ratiosTo(oldCase, pairing.old(oldCase)), ratiosTo(newCase, pairing.new(newCase))]
      : [null, null];
  const paired = Boolean(oldRatios && newRatios && oldRatios.length >= MIN_RUNS && newRatios.length >= MIN_RUNS);
  const row = {
    ...identity(known),
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
  if (row.old.runs < MIN_RUNS || row.new.runs < MIN_RUNS) return fewRuns(row, { strict, threshold, machine });
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

// Which case a row is, by what it ran.
const identity = (caseResult) => ({
  key: caseKey(caseResult),
  index: caseResult.index,
  presets: caseResult.presets,
  label: caseLabel(caseResult),
  direction: caseResult.direction,
});

// Fewer than MIN_RUNS on a side: 'cannot tell', or with --strict the
// threshold and the min..max ranges alone, unless the machine's own change
// reaches the case's.
function fewRuns(row, { strict, threshold, machine }) {
  const deltaPercent = ((row.new.median - row.old.median) / row.old.median) * 100;
  if (!strict) return { ...row, deltaPercent, verdict: 'cannot-tell' };
  const ranged = rangeVerdict(row.old, row.new, deltaPercent, threshold);
  const change = { low: deltaPercent, high: deltaPercent };
  const verdict =
    ['slower', 'faster'].includes(ranged) && machine && !beyondMachine(change, machine, ranged === 'slower')
      ? machineVerdict(machine, ranged === 'slower')
      : ranged;
  return { ...row, deltaPercent, verdict, regressed: verdict === 'slower' };
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

// A case's per-round ratios to its run's anchor; null for the anchor
// itself or a case without one.
function ratiosTo(caseResult, anchor) {
  if (!anchor || anchor === caseResult || caseResult.status !== 'ok') return null;
  return pairedRatios(caseResult.runs, anchor.runs);
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
  /** @type {[string, (result: any) => string | undefined][]} */
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
