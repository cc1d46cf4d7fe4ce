// @ts-check
import { runCase } from './run-case.js';
import { coefficientOfVariation, median } from '../statistics/summaries.js';

// The machine's own spread, measured before the rounds: a few short runs of
// `direct` (the engine's client straight to its server, no relay), whose
// receiver bitrates vary only because the machine does. A difference
// between two cases smaller than this cv is one the machine could make on
// its own, which is what a reader of the ranking needs to know.
const NOISE_FLOOR_SECONDS = 1;

// Resolves with { runs, seconds, cv, bits_per_second (the median), values }
// over the ok runs, or null when fewer than 2 measured (a spread needs two).
// `context` is runCase()'s, with the bulk workload and its engine.
export async function measureNoiseFloor(count, { settings, context }) {
  const values = [];
  for (let run = 0; run < count && !context.signal?.aborted; run += 1) {
    // Bulk TCP at full speed whatever the run's workload: the machine's
    // spread, not the workload's.
    const outcome = await runCase(
      { impl: 'direct' },
      { ...settings, duration: NOISE_FLOOR_SECONDS, rate: null, latency: false, requests: false, udp: false },
      {
        ...context,
        index: -1,
        direction: 'forward',
        profile: null,
      },
    );
    if (outcome.status === 'ok') values.push(outcome.receiver.bits_per_second);
  }
  if (values.length < 2) return null;
  return {
    runs: values.length,
    seconds: NOISE_FLOOR_SECONDS,
    cv: coefficientOfVariation(values),
    bits_per_second: median(values),
    values,
  };
}
