// @ts-check
import { DISTURBED_OTHERS, DISTURBED_STEAL } from '../result.js';

// Did a run get the machine it needed? A run is disturbed when, over its
// measurement, processes outside the run took more than DISTURBED_OTHERS
// of all cores' time, or the hypervisor stole more than DISTURBED_STEAL of
// it for other guests: its figure then measures the neighbours as much as
// the relays (docs/statistics.md, "What disturbed a run"). Returns the
// reason in one line, or null for a sound run (and for one that did not
// measure, or whose machine could not be read).
export function disturbedReason(run) {
  const { others, steal } = run?.disturbance ?? {};
  if (typeof others === 'number' && others > DISTURBED_OTHERS)
    return `other processes took ${percent(others)} of the machine's CPU (limit ${percent(DISTURBED_OTHERS)})`;
  if (typeof steal === 'number' && steal > DISTURBED_STEAL)
    return `the hypervisor took ${percent(steal)} of the machine's CPU for other guests (limit ${percent(DISTURBED_STEAL)})`;
  return null;
}

const percent = (share) => `${Math.round(share * 100)}%`;

// How many times a disturbed run is measured again by default (--remeasure):
// each retry is a whole run of the case (relays started afresh), and a
// run's retries all told may add at most RETRY_SHARE of its planned runs,
// so a machine that stays busy costs a bounded time and then marks what it
// could not measure.
export const RETRIES_PER_RUN = 2;
const RETRY_SHARE = 0.25;

// The retries a run of `plannedRuns` may spend in all, at most `perRun` for
// any one of them.
export const retryBudget = (plannedRuns, perRun) =>
  perRun === 0 ? 0 : Math.max(perRun, Math.ceil(plannedRuns * RETRY_SHARE));
