// @ts-check
import { bootstrapRatioInterval } from '../statistics/significance.js';
import { coefficientOfVariation, median } from '../statistics/summaries.js';

// How much the machine itself changed between two runs, as their `direct`
// runs saw it: direct moves bytes with no relay at all, so a change of its
// bitrate is the machine's (other work on it, another guest on its host, a
// CPU clocked differently), never the code's. Two sources, each used when
// both runs have at least MIN_DIRECT_RUNS of it:
//   the noise floor, a few 1 s direct runs before the rounds;
//   a `direct` case among the cases, measured in the rounds beside them.
// Each gives the change of its median, new over old, with the same 95 %
// bootstrap interval a case's change gets (significance.js). docs/statistics.md
// explains how compare uses it.

const MIN_DIRECT_RUNS = 2;

// { deltaPercent, intervalPercent: { low, high }, sources } of two
// upgraded results, or null when neither source is on both sides.
// intervalPercent spans every source's interval (the most the machine
// could have moved by any of them); deltaPercent is the direct case's,
// which ran among the cases, else the noise floor's. `directions`: those compared;
// `figure`: the workload's (workload.js), which a direct case is read by.
/**
 * @param {any} oldResult
 * @param {any} newResult
 * @param {{ directions?: string[], figure?: import('./sections/figures.js').Figure }} [options]
 */
export function machineChange(oldResult, newResult, { directions = ['forward'], figure } = {}) {
  const sources = [
    source('the noise floor', 'bitrate', noiseFloorValues(oldResult), noiseFloorValues(newResult)),
    ...directions.map((direction) => {
      const [before, after] = [directCase(oldResult, direction), directCase(newResult, direction)];
      const name = `direct (case ${after?.index ?? before?.index}${direction === 'reverse' ? ', reverse' : ''})`;
      return source(name, figure.kind, caseValues(before, figure), caseValues(after, figure));
    }),
  ].filter(Boolean);
  if (sources.length === 0) return null;
  const speaking = sources.at(-1);
  return {
    deltaPercent: speaking.deltaPercent,
    intervalPercent: {
      low: Math.min(...sources.map((entry) => entry.intervalPercent.low)),
      high: Math.max(...sources.map((entry) => entry.intervalPercent.high)),
    },
    sources,
  };
}

// The largest cv of the direct runs in either result (noise floor, or a
// direct case with 2 or more runs), as a fraction; 0 when neither has any.
// One side's is enough: a machine that spread that much within one run
// can make a change that large between two.
export function machineNoiseCv(results, { figure }) {
  const spreads = results
    .flatMap((result) => [
      noiseFloorValues(result),
      ...result.cases
        .filter((caseResult) => caseResult.impl === 'direct' && caseResult.status === 'ok')
        .map((caseResult) => caseValues(caseResult, figure)),
    ])
    .filter((values) => values.length >= MIN_DIRECT_RUNS)
    .map(coefficientOfVariation);
  return Math.max(0, ...spreads);
}

// `figure`: 'bitrate', or 'requests' (per second), what the values are.
function source(name, figure, oldValues, newValues) {
  if (oldValues.length < MIN_DIRECT_RUNS || newValues.length < MIN_DIRECT_RUNS) return null;
  const side = (values) => ({
    median: median(values),
    cv: coefficientOfVariation(values),
    runs: values.length,
    values,
  });
  const [before, after] = [side(oldValues), side(newValues)];
  const { low, high } = bootstrapRatioInterval(oldValues, newValues);
  return {
    name,
    figure,
    old: before,
    new: after,
    deltaPercent: (after.median / before.median - 1) * 100,
    intervalPercent: { low: (low - 1) * 100, high: (high - 1) * 100 },
  };
}

function noiseFloorValues(result) {
  return result.noiseFloor?.values ?? [];
}

function directCase(result, direction) {
  return (
    result.cases.find(
      (caseResult) => caseResult.impl === 'direct' && caseResult.direction === direction && caseResult.status === 'ok',
    ) ?? null
  );
}

function caseValues(caseResult, figure) {
  if (!caseResult) return [];
  return caseResult.runs
    .filter((run) => run.status === 'ok')
    .map(figure.ofRun)
    .filter((value) => value !== null);
}

// A run's CPU was busy when its runs left under this share of it idle
// (median over the ok runs' `disturbance.idle`): what its relays did not
// get went to other work, not to idleness of their own.
const BUSY_IDLE = 0.05;

export function busyMachine(result) {
  const idle = result.cases
    .flatMap((caseResult) => caseResult.runs)
    .map((run) => (run.status === 'ok' ? run.disturbance?.idle : null))
    .filter((value) => typeof value === 'number');
  return idle.length > 0 && median(idle) < BUSY_IDLE;
}

// The change of the share of a core a case's two relays got while they
// carried its bytes (their CPU seconds over the receiver's seconds, per ok
// run), new over old: { deltaPercent, intervalPercent }, or null without
// MIN_DIRECT_RUNS runs with a cost a side (direct, no /proc, requests).
// Bitrate is that share over the CPU a byte costs: on a busy machine a
// relay that got less CPU carries fewer bytes with the same code.
export function relayCpuChange(oldCase, newCase) {
  const shares = (caseResult) =>
    caseResult.runs
      .filter((run) => run.status === 'ok' && run.cost && run.receiver?.seconds > 0)
      .map((run) => (run.cost.client.cpuSeconds + run.cost.server.cpuSeconds) / run.receiver.seconds);
  const [before, after] = [shares(oldCase), shares(newCase)];
  if (before.length < MIN_DIRECT_RUNS || after.length < MIN_DIRECT_RUNS) return null;
  const { low, high } = bootstrapRatioInterval(before, after);
  return {
    deltaPercent: (median(after) / median(before) - 1) * 100,
    intervalPercent: { low: (low - 1) * 100, high: (high - 1) * 100 },
  };
}
