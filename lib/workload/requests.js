import { GENERATOR_SHARE_LIMIT, IDLE_LIMIT } from '../result.js';
import { DEFAULT_LEVEL, median, medianInterval } from '../statistics/summaries.js';

// A case's request figures (docs/result.md, "requests") from its runs:
// those of the median run by requests per second (the slower of the two
// middle ones for an even count, as for bitrates), with the spread of
// requests per second over the runs and the interval of their median (low,
// high, level, coverage, as a bitrate's: docs/statistics.md), and each
// relay's CPU seconds per 1,000 requests answered, the median of each run's
// own. null when no run measured requests.
export function summariseRequests(runs, { level = DEFAULT_LEVEL } = {}) {
  const measured = runs.filter((run) => run.status === 'ok' && run.requests);
  if (measured.length === 0) return null;
  const rates = measured.map((run) => run.requests.requestsPerSecond);
  const byRate = [...measured].sort((a, b) => a.requests.requestsPerSecond - b.requests.requestsPerSecond);
  const medianRun = byRate[Math.ceil(byRate.length / 2) - 1];
  const costed = measured.filter((run) => run.cost);
  const perThousand = (role) => median(costed.map((run) => run.cost[role].cpuSeconds / (run.requests.ok / 1000)));
  return {
    ...medianRun.requests,
    requestsPerSecond: median(rates),
    min: Math.min(...rates),
    max: Math.max(...rates),
    ...medianInterval(rates, level),
    cpuSecondsPerThousand: costed.length === 0 ? null : { client: perThousand('client'), server: perThousand('server') },
    generator: summariseGenerator(measured),
  };
}

// What the load generator cost over a case's runs: its CPU seconds per
// 1,000 requests answered and its share of the machine (medians), and
// how many runs it may have squeezed (result.js's limits). Runs from before
// the generator was measured have none: null.
function summariseGenerator(runs) {
  const read = runs.filter((run) => typeof run.requests.generator?.cpuSeconds === 'number');
  if (read.length === 0) return null;
  const squeezed = read.filter((run) => run.requests.generator.share > GENERATOR_SHARE_LIMIT
    && (typeof run.disturbance?.idle !== 'number' || run.disturbance.idle < IDLE_LIMIT)).length;
  return {
    engine: read[0].requests.generator.engine,
    cpuSecondsPerThousand: median(read.map((run) => run.requests.generator.cpuSeconds / (run.requests.ok / 1000))),
    share: median(read.map((run) => run.requests.generator.share)),
    squeezedRuns: squeezed,
  };
}
