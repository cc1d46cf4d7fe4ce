// @ts-check
import { ceilingFor } from '../ceiling/chain-ceilings.js';
import {
  bootstrapMedianInterval,
  DEFAULT_LEVEL,
  median,
  pairedRatios,
  summariseCost,
} from '../statistics/summaries.js';
import { WORKLOADS } from '../workload/index.js';

// The cases of a run as measured so far: each slot's (a case in one
// direction, schedule.js) runs and latency, summarised into the result's
// cases[] (docs/result.md) whenever asked, with the ratios of --relative-to
// and the stopping rule's verdict. `found` holds what locatePeer() found for
// each case index (a reason when its implementation is missing); the
// workload's figure (its figure(settings)) is what the ratios and the
// stopping rule judge.
/**
 * @param {object} ledger
 * @param {(import('../contracts.js').Reference & { index: number, direction: 'forward' | 'reverse' })[]} ledger.slots
 * @param {Map<number, { reason?: string }>} ledger.found
 * @param {import('../contracts.js').Workload} ledger.workload
 * @param {import('../contracts.js').RunSettings} ledger.settings
 * @param {number | null} ledger.anchorIndex
 */
export function caseLedger({ slots, found, workload, settings, anchorIndex }) {
  const { parallel, confidence } = settings;
  const level = confidence?.level ?? DEFAULT_LEVEL;
  const figure = workload.figure(settings);
  const states = slots.map(({ index }) => ({
    runs: [],
    latency: null,
    latencyReason: null,
    unavailable: found.get(index).reason ?? null,
  }));
  let ceilings = null;
  const one = (slot) => summariseCase(slots[slot], states[slot], { workload, parallel, ceilings, level });
  /** @type {() => import('../contracts.js').CaseResult[]} */
  const all = () =>
    withConvergence(
      withRelative(
        slots.map((_, slot) => one(slot)),
        anchorIndex,
        level,
        figure,
      ),
      confidence,
      figure,
    );
  return {
    // The run's cipher ceilings, once measured (ceiling/chain-ceilings.js).
    setCeilings: (measured) => {
      ceilings = measured;
    },
    // One run of a slot, as runCase() resolved it less the latency and
    // the reason it is missing, which are the case's, not the run's.
    record: (slot, run, { latency, latencyReason }) => {
      const state = states[slot];
      state.runs.push(run);
      if (latency) state.latency = latency;
      if (latencyReason) state.latencyReason = latencyReason;
    },
    // Has this slot a latency figure yet? (The probe runs until one does.)
    hasLatency: (slot) => states[slot].latency !== null,
    one,
    all,
  };
}

// A case from its runs so far: ok when any run was, failed when none was
// and one failed (with the last failure's reason), else skipped (its
// implementation is not installed, or the run was interrupted before it
// measured anything).
/** @returns {Omit<import('../contracts.js').CaseResult, 'relative' | 'width' | 'converged'>} the run's ratios and its stopping rule add those (withRelative, withConvergence) */
function summariseCase(
  { index, direction, ...identity },
  { runs, latency, latencyReason, unavailable },
  { workload, parallel, ceilings, level },
) {
  const ok = runs.some((run) => run.status === 'ok');
  const lastFailure = runs.findLast((run) => run.status === 'failed');
  const status = ok ? 'ok' : lastFailure ? 'failed' : 'skipped';
  const figures = { sender: null, receiver: null, unstable: false, ...workload.summarise(runs, { level }) };
  const { sender, receiver, unstable } = figures;
  // A reference row's cipher is not ours: no ceiling to hold it against.
  const chainCeiling = ceilings && !identity.impl ? ceilingFor(ceilings, identity.presets) : null;
  const warnings = [];
  if (chainCeiling?.reason) warnings.push(`no cipher ceiling: ${chainCeiling.reason}`);
  if (ok && !latency && latencyReason) warnings.push(`no latency: ${latencyReason}`);
  const summary = {
    index,
    ...identity,
    status,
    reason: ok ? null : (lastFailure?.reason ?? unavailable ?? 'run interrupted'),
    direction,
    parallel,
    // A copy: the case an event carries must not grow with later runs.
    runs: [...runs],
    sender,
    receiver,
    unstable,
    wallSeconds: runs.reduce((sum, run) => sum + run.wallSeconds, 0),
    cost: summariseCost(runs, { level }),
    wire: summariseWire(runs),
    negotiated: summariseNegotiated(runs),
    latency,
    ceiling: chainCeiling?.ceiling ? withEfficiency(chainCeiling.ceiling, receiver) : null,
    disturbed: summariseDisturbed(runs),
    warnings,
  };
  return withOwnFigures(summary, figures);
}

// Every workload's own figures' field (its `figures`), after the field it
// names: the figures of the workload that ran, null for the others, so
// every case of every run has the same fields.
/** @returns {Omit<import('../contracts.js').CaseResult, 'relative' | 'width' | 'converged'>} */
function withOwnFigures(summary, figures) {
  const entries = Object.entries(summary);
  for (const { figures: own } of WORKLOADS) {
    if (!own) continue;
    const at = entries.findIndex(([field]) => field === own.after);
    entries.splice(at < 0 ? entries.length : at + 1, 0, [own.field, figures[own.field] ?? null]);
  }
  // Typed by hand: which fields there are is the registry's, at run time.
  return /** @type {any} */ (Object.fromEntries(entries));
}

// The case's ok runs that stayed disturbed after being measured again
// (rounds.js): { runs, of, reason } with the last one's reason, or null
// when none did. Such a figure is not an order (report/ranking.js).
function summariseDisturbed(runs) {
  const ok = runs.filter((run) => run.status === 'ok');
  const disturbed = ok.filter((run) => run.disturbed);
  return disturbed.length === 0 ? null : { runs: disturbed.length, of: ok.length, reason: disturbed.at(-1).disturbed };
}

// On a link, the median share of the payload that the wire carried on top
// of it, over the ok runs; null without a link.
function summariseWire(runs) {
  const overheads = runs.map((run) => run.wire?.overhead).filter((value) => typeof value === 'number');
  return overheads.length === 0 ? null : { overhead: median(overheads) };
}

// What the relay client's transport negotiated (TLS: version and suite),
// each different one once, over the ok runs; null when none said.
function summariseNegotiated(runs) {
  const said = [...new Set(runs.map((run) => run.negotiated).filter(Boolean))];
  return said.length === 0 ? null : said.join('; ');
}

// With --relative-to, each case against the named case in the same
// direction, as hyperfine puts one command against another, but paired:
// for each round both measured, this case's receiver bitrate over the
// anchor's, and the median of those ratios with its bootstrap
// interval: { to: index, ratio, low, high, level, rounds }. ratio is null
// for the named case itself and when no round measured both; low and high
// are null with fewer than 3 such rounds. null for every case without it.
// At a fixed rate (figure 'cost') the ratios are of the pair's CPU seconds
// per GB, over the rounds where neither run was saturated: each run's
// figure as the workload's figure reads it.
function withRelative(cases, anchorIndex, level, { ofRun }) {
  return cases.map((caseResult) => {
    if (anchorIndex === null) return { ...caseResult, relative: null };
    const anchor = cases.find((other) => other.index === anchorIndex && other.direction === caseResult.direction);
    const ratios = anchor && caseResult !== anchor ? pairedRatios(caseResult.runs, anchor.runs, ofRun) : [];
    const none = { to: anchorIndex, ratio: null, low: null, high: null, level, rounds: ratios.length };
    if (ratios.length === 0) return { ...caseResult, relative: none };
    const { low, high } = bootstrapMedianInterval(ratios, { level });
    return { ...caseResult, relative: { ...none, ratio: median(ratios), low, high } };
  });
}

// Each case's width, the widest of the intervals the stopping rule judges
// (its median receiver bitrate's, or at a fixed rate its pair's CPU
// seconds per GB, and with --relative-to its ratio's),
// low to high as a share of the median; null when it has no interval yet.
// With --confidence, converged says whether every one of them is as narrow
// as asked at the level asked (fewer rounds than the level needs never
// converge); null without --confidence, and for a case not measured.
function withConvergence(cases, confidence, judged) {
  return cases.map((caseResult) => {
    const widths = [];
    let reachesLevel = true;
    const figure = judged.ofCase(caseResult);
    if (figure) {
      const {
        summary: { low, high, coverage, level },
        middle,
      } = figure;
      widths.push(low === null ? null : (high - low) / middle);
      reachesLevel = coverage >= level;
    }
    if (caseResult.relative && caseResult.relative.ratio !== null) {
      const { low, high, ratio } = caseResult.relative;
      widths.push(low === null ? null : (high - low) / ratio);
    }
    const width = widths.length === 0 || widths.includes(null) ? null : Math.max(...widths);
    const converged =
      confidence && caseResult.status === 'ok' ? width !== null && reachesLevel && width <= confidence.width : null;
    return { ...caseResult, width, converged };
  });
}

// The case whose interval is widest so far, for the progress line:
// { index, direction, width }, or null while no case has an interval.
export function widestInterval(cases) {
  const widest = cases.filter((caseResult) => caseResult.width !== null).sort((a, b) => b.width - a.width)[0];
  return widest ? { index: widest.index, direction: widest.direction, width: widest.width } : null;
}

// How much of what the cipher alone could carry on one core the relay pair
// delivered: the slower direction bounds it, as a relay pair runs both.
// null when nothing was measured to set against it.
function withEfficiency(ceiling, receiver) {
  const bound = Math.min(ceiling.encryptBps, ceiling.decryptBps);
  return { ...ceiling, efficiency: receiver ? receiver.bits_per_second / bound : null };
}
