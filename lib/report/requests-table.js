// @ts-check
import { caseLabel } from './case-label.js';
import { bracketedInterval, levelsText, relativeCell, requestsRankNote } from './ranking.js';
import { formatFixed } from './units.js';
import { GENERATOR_SHARE_LIMIT, IDLE_LIMIT } from '../result.js';

// The request workload's table (docs/result.md, "requests") in seed 002's
// layout, the same columns in every report: who, which inbound, requests
// answered and failed, requests per second (the ranking), the latency
// percentiles and spread, and what the relays' CPU cost per 1,000 requests;
// with --relative-to, each case's requests per second as a multiple of the
// named case's, paired by round. Cells are plain text; each printer aligns
// or marks them up.
const ms = (value) => formatFixed(value, 2);

/**
 * A column of the request table: its heading, its side, and its cell of a
 * case at a rank.
 * @typedef {{ title: string, align: 'left' | 'right', cell: (caseResult: any, rank: number) => string }} RequestColumn
 */

/** @type {readonly RequestColumn[]} */
const COLUMNS = Object.freeze([
  { title: 'Rank', align: 'right', cell: (caseResult, rank) => String(rank) },
  { title: 'Impl', align: 'left', cell: (caseResult) => caseLabel(caseResult) },
  { title: 'Kind', align: 'left', cell: (caseResult) => caseResult.requests.kind },
  { title: 'OK', align: 'right', cell: (caseResult) => caseResult.requests.ok.toLocaleString('en-US') },
  { title: 'Errors', align: 'right', cell: (caseResult) => errorsCell(caseResult.requests.errors) },
  { title: 'req/s', align: 'right', cell: (caseResult) => rateCell(caseResult) },
  { title: 'p50', align: 'right', cell: (caseResult) => ms(caseResult.requests.latency.p50) },
  { title: 'p90', align: 'right', cell: (caseResult) => ms(caseResult.requests.latency.p90) },
  { title: 'p99', align: 'right', cell: (caseResult) => ms(caseResult.requests.latency.p99) },
  { title: 'p99.9', align: 'right', cell: (caseResult) => ms(caseResult.requests.latency.p999) },
  { title: 'max', align: 'right', cell: (caseResult) => ms(caseResult.requests.latency.max) },
  { title: 'stdev', align: 'right', cell: (caseResult) => ms(caseResult.requests.latency.stdev) },
  { title: 'CPU ms/1k req', align: 'right', cell: (caseResult) => cpuCell(caseResult.requests.cpuSecondsPerThousand) },
  { title: 'load gen ms/1k', align: 'right', cell: (caseResult) => generatorCell(caseResult.requests.generator) },
]);
// With a new connection a request: connections opened to the case's entry
// and to its server over the counted seconds (fewer to the server: a mux).
const OPENED_COLUMN = Object.freeze({
  title: 'conns in/out',
  align: 'right',
  cell: (caseResult) => {
    const { opened } = caseResult.requests;
    return opened && opened.server !== null
      ? `${opened.entry.toLocaleString('en-US')}/${opened.server.toLocaleString('en-US')}`
      : '';
  },
});
const RELATIVE_COLUMN = Object.freeze({
  title: 'x anchor',
  align: 'right',
  cell: (caseResult) => relativeCell(caseResult),
});

// The columns for these ranked cases: the ratio's only when a case has
// one. Requests per second carry the rank note, as the bitrate ranking
// marks its ranks.
export function requestColumns(ranked) {
  const noted = (caseResult) => {
    const note = requestsRankNote(ranked, ranked.indexOf(caseResult));
    return note ? `${rateCell(caseResult)}, ${note}` : rateCell(caseResult);
  };
  const columns = COLUMNS.map((column) => (column.title === 'req/s' ? { ...column, cell: noted } : column));
  if (ranked.some((caseResult) => caseResult.requests.opened?.server > 0)) columns.push(OPENED_COLUMN);
  return ranked.some((caseResult) => caseResult.relative) ? [...columns, RELATIVE_COLUMN] : columns;
}

// What the table's numbers are, for the line under it.
export function requestsNote(ranked, { noiseFloor = null } = {}) {
  const first = ranked[0]?.requests;
  if (!first) return '';
  const mode = first.newConnections
    ? 'a new connection for every request (its handshake included)'
    : 'kept-alive connections';
  const level = levelsText(ranked.map((caseResult) => caseResult.requests));
  return (
    `${first.concurrency} clients, ${mode}; latency in ms; ranked by requests per second` +
    `${level ? `, the median over runs with its ${level} interval ('at N%' where too few runs reach the level asked); overlaps #N-#M: its interval overlaps those of ranks N to M, so their order may be the noise's` : ''}` +
    `${noiseFloorNote(noiseFloor)}; CPU: relay client + server` +
    `${ranked.some((caseResult) => caseResult.requests.opened?.server > 0) ? '; conns in/out: TCP connections opened to the relay client and by it to the relay server over the counted seconds' : ''}` +
    `${generatorNote(ranked)}.`
  );
}

// The noise floor is direct's bulk TCP spread, which says nothing of how
// much a request rate varies: requests per second are never judged by it,
// and a run that measured one says so.
function noiseFloorNote(noiseFloor) {
  if (!noiseFloor) return '';
  return `; no noise floor applies to requests per second (direct's, cv ${formatFixed(noiseFloor.cv * 100, 1)}%, is a TCP stream's bitrate)`;
}

// Which load generator ran, and the rows it may have squeezed: '*' in the
// table marks them (docs/requests.md, "What the load generator took").
function generatorNote(ranked) {
  const engine = ranked.find((caseResult) => caseResult.requests.generator)?.requests.generator.engine;
  if (!engine) return '';
  const name = engine === 'node' ? 'the built-in client' : engine;
  const squeezed = ranked.filter((caseResult) => caseResult.requests.generator?.squeezedRuns > 0);
  const marked =
    squeezed.length === 0
      ? ''
      : `; * ${name} took over ${percent(GENERATOR_SHARE_LIMIT)} of the machine with under ${percent(IDLE_LIMIT)} left idle in ` +
        `${squeezed.map((caseResult) => `${caseResult.requests.generator.squeezedRuns} of ${caseResult.runs.length} runs of ${caseLabel(caseResult)}`).join(', ')}: ` +
        'it took that CPU from what it measured, so the row may read slower than it is';
  return `; load gen ms/1k: ${name}'s own CPU ms per 1,000 requests, (N%) its share of all cores' time${marked}`;
}

const percent = (share) => `${Math.round(share * 100)}%`;

// The generator's CPU per 1,000 requests, and its share of the machine.
function generatorCell(generator) {
  if (!generator) return '';
  return `${formatFixed(generator.cpuSecondsPerThousand * 1000, 1)} (${percent(generator.share)})${generator.squeezedRuns > 0 ? ' *' : ''}`;
}

function errorsCell(errors) {
  const kinds = Object.entries(errors).filter(([, count]) => count > 0);
  const total = kinds.reduce((sum, [, count]) => sum + count, 0);
  return total === 0 ? '0' : `${total} (${kinds.map(([kind, count]) => `${kind} ${count}`).join(', ')})`;
}

// The median and, from 2 runs on, its interval as every other figure has
// it (docs/statistics.md), marked with its coverage when below the level.
function rateCell({ requests }) {
  const rate = formatFixed(requests.requestsPerSecond, 0);
  const interval = bracketedInterval(requests, (value) => formatFixed(value, 0));
  return interval ? `${rate} ${interval}` : rate;
}

function cpuCell(perThousand) {
  if (!perThousand) return '';
  return formatFixed((perThousand.client + perThousand.server) * 1000, 1);
}
