// @ts-check
import { seededRandom } from '../statistics/summaries.js';
import { bisectRate } from '../workload/udp.js';
import { widestInterval } from './case-summary.js';
import { disturbedReason, retryBudget } from './disturbed-runs.js';
import { runCase } from './run-case.js';
import { roundOrder } from './schedule.js';

// The rounds of a run (schedule.js says why rounds): every measurable
// slot once per round, in a fresh order drawn from --seed. Without the
// stopping rule a run is --repeat rounds; with it (--confidence) at least
// `rounds.min` and at most `rounds.max`, a round started only while some case
// has not converged and, at the pace of the rounds so far, it ends within
// --max-time. Each run goes to `ledger`; `onRun({ rounds })` is told after
// each, with the rounds finished so far. Emits
// case-started, case-finished and round-finished (docs/result.md, "Events").
// Resolves with { rounds, stopped }: the rounds that ran, and with the
// stopping rule why they stopped ('converged', 'max-time', 'max-rounds').
export async function measureRounds({ slots, measurable, ledger, settings, context, rounds: bounds, started, onRun }) {
  const { min: minRounds, max: maxRounds } = bounds;
  const { signal, emit } = context;
  const confidence = settings.confidence;
  const perRound = measurable.filter(Boolean).length;
  const converged = () => ledger.all().every((caseResult) => caseResult.converged !== false);
  const random = seededRandom(settings.seed);
  const roundsStarted = performance.now();
  let total = minRounds * perRound;
  const budget = retryBudget(total, settings.remeasure);
  const retries = { left: budget, budget };
  let position = 0;
  let rounds = 0;
  let stopped = null;
  for (let round = 0; round < maxRounds && !signal?.aborted; round += 1) {
    if (round >= minRounds) {
      if (converged()) {
        stopped = 'converged';
        break;
      }
      const elapsed = (performance.now() - started) / 1000;
      const perRoundSeconds = (performance.now() - roundsStarted) / 1000 / round;
      if (settings.maxTime !== null && elapsed + perRoundSeconds > settings.maxTime) {
        stopped = 'max-time';
        break;
      }
      total += perRound;
    }
    // The order is drawn for every slot, measurable or not, so a seed
    // replays the same order whatever is installed.
    for (const slot of roundOrder(slots, random).filter((at) => measurable[at])) {
      if (signal?.aborted) break;
      position += 1;
      const where = { position, total, round, rounds: confidence ? null : settings.repeat };
      const run = await measureSlot(slots[slot], { slot, round, where, ledger, settings, context, retries });
      onRun({ rounds });
      if (run.status !== 'skipped') {
        // With the stopping rule no round is known to be the last before it ends.
        emit({
          type: 'case-finished',
          case: ledger.one(slot),
          run,
          ...where,
          last: !confidence && round === settings.repeat - 1,
        });
      }
    }
    if (signal?.aborted) break;
    rounds += 1;
    emit({ type: 'round-finished', round, rounds: maxRounds, widest: widestInterval(ledger.all()) });
  }
  if (confidence && stopped === null && !signal?.aborted) stopped = converged() ? 'converged' : 'max-rounds';
  return { rounds, stopped };
}

// One run of one slot, recorded in the ledger. The latency probe runs
// until the case has a figure; with a rate search (rateSearch: --udp
// without --rate, or with --max-loss) a run is the bisection's probes, its
// figure the highest rate that passed. A disturbed run
// (disturbed-runs.js) is measured again while the run's retries last; the
// run kept says how many were set aside (`remeasured`), and, when it was
// disturbed too, why (`disturbed`). Each retry is announced
// (case-remeasured): it is a run more than the rounds planned.
async function measureSlot(
  { index, direction, ...identity },
  { slot, round, where, ledger, settings, context, retries },
) {
  context.emit({ type: 'case-started', case: { index, ...identity, direction }, ...where });
  const runSettings = { ...settings, latency: settings.latency && !settings.requests && !ledger.hasLatency(slot) };
  const runContext = { ...context, index, direction, found: context.located.get(index).found, profileRun: round };
  const measure = () =>
    !settings.rateSearch
      ? runCase(identity, runSettings, runContext)
      : bisectRate((rate) => runCase(identity, { ...runSettings, rate }, runContext), settings);
  // A smoke run checks that every piece works, and ranks nothing: it
  // neither measures again nor marks.
  const judge = (measured) => (settings.mode === 'smoke' ? null : disturbedReason(measured));
  let outcome = await measure();
  const setAside = [];
  // A rate search is many runs: it is marked, not searched again.
  while (
    !settings.rateSearch &&
    judge(outcome) &&
    setAside.length < settings.remeasure &&
    retries.left > 0 &&
    !context.signal?.aborted
  ) {
    retries.left -= 1;
    setAside.push({ reason: judge(outcome), wallSeconds: outcome.wallSeconds });
    context.emit({
      type: 'case-remeasured',
      case: { index, ...identity, direction },
      reason: judge(outcome),
      wallSeconds: outcome.wallSeconds,
      attempt: setAside.length,
      attempts: settings.remeasure,
      added: retries.budget - retries.left,
      budget: retries.budget,
      ...where,
    });
    const again = await measure();
    // An interrupted retry leaves the disturbed run it replaced.
    if (again.status === 'skipped') break;
    outcome = again;
  }
  const reason = judge(outcome);
  const { latency, latencyReason, ...run } = {
    round,
    ...outcome,
    ...(setAside.length > 0 ? { remeasured: setAside } : {}),
    ...(reason ? { disturbed: reason } : {}),
  };
  ledger.record(slot, run, { latency, latencyReason });
  return run;
}
