import { max, mean, percentile } from '../statistics/summaries.js';

// One shape for every latency figure, TCP round trips, new connections and
// UDP echoes alike, so the reports read them with one function
// (docs/result.md, a case's `latency`).
export function summariseLatency(milliseconds) {
  const sorted = [...milliseconds].sort((a, b) => a - b);
  return {
    count: sorted.length,
    unit: 'ms',
    mean: mean(sorted),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: max(sorted),
  };
}
