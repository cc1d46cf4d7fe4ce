// @ts-check
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
  ranking: ['requests'],
});
