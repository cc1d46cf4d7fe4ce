// @ts-check
import { formatFixed } from '../units.js';
import { REQUESTS_FIGURE } from './figures.js';

// HTTP/1.1 clients through each case: requests per second and latency.
/** @type {import('./index.js').WorkloadSections} */
export const REQUESTS_SECTIONS = Object.freeze({
  kind: 'requests',
  describe: ({ concurrency, responseSize, newConnections }) =>
    `requests, ${concurrency} clients, ${responseSize}-byte responses, ${newConnections ? 'a new connection a request' : 'kept-alive connections'}`,
  figure: REQUESTS_FIGURE,
  builtInEngine: 'node (built in: its own HTTP client)',
  rankedByCostAtRate: false,
  caseBlock: ['requests'],
  ownText: { requests: ({ requests }) => requestLines(requests) },
  ranking: ['requests'],
});

// One case's request figures, under its block's title.
function requestLines(requests) {
  const { latency, errors } = requests;
  const failed = Object.entries(errors)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`);
  return [
    `Requests         ${requests.ok} ok in ${requests.seconds.toFixed(2)} s, ${formatFixed(requests.requestsPerSecond, 0)} req/s, ${requests.kind}, ${requests.concurrency} clients${requests.newConnections ? ', new connection each' : ''}`,
    `errors           ${failed.length === 0 ? 'none' : failed.join(', ')}`,
    `latency (ms)     p50 ${formatFixed(latency.p50, 3)}  p90 ${formatFixed(latency.p90, 3)}  p99 ${formatFixed(latency.p99, 3)}  p99.9 ${formatFixed(latency.p999, 3)}  max ${formatFixed(latency.max, 3)}  stdev ${formatFixed(latency.stdev, 3)}`,
  ];
}
