import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';

// What a run measured (its `workload`, docs/result.md) and how: a TCP bulk
// stream (at full speed or at a fixed rate), UDP at an offered rate, or
// the request workload; for how long a run, over how many streams or
// clients, across which link. Two runs whose workloads differ measured
// different quantities: their figures are not a change of the code, so
// `compare` refuses them and `history` keeps them apart.

// { kind, description, figure } of an upgraded result: `kind` is the word
// compare and history print for the workload ('tcp' for bulk);
// `description` is one phrase, equal for two runs exactly when their
// figures can be compared.
export function workloadOf(result) {
  const { options } = result;
  const { kind, describe } = WORKLOADS[result.workload];
  const link = options.link ? `, across link ${options.link.name ?? 'shaped'}` : '';
  return { kind, description: `${describe(options)}, ${options.duration} s a run${link}`, figure: figureFor(kind) };
}

const WORKLOADS = Object.freeze({
  bulk: {
    kind: 'tcp',
    describe: ({ rate, parallel }) =>
      `TCP bulk ${rate ? `at ${formatBitrate(rate)} offered` : 'at full speed'}, ${parallel} ${parallel === 1 ? 'stream' : 'streams'}`,
  },
  udp: {
    kind: 'udp',
    // The bound of a fixed rate only decides which rows are ranked: the
    // figures are those of the same runs with or without it.
    describe: ({ rateSearch, rate, maxLoss, length }) =>
      `UDP ${rateSearch ? `the highest rate up to ${formatBitrate(rate)} losing at most ${maxLoss}%` : `at ${formatBitrate(rate)} offered`}, ${length}-byte datagrams`,
  },
  requests: {
    kind: 'requests',
    describe: ({ concurrency, responseSize, newConnections }) =>
      `requests, ${concurrency} clients, ${responseSize}-byte responses, ${newConnections ? 'a new connection a request' : 'kept-alive connections'}`,
  },
});

// The figure a workload's cases are compared and charted by: its title,
// its value in one ok run, its summary over the runs (median, min, max),
// and how to print a value, alone or in another value's unit.
const BITRATE_FIGURE = Object.freeze({
  kind: 'bitrate',
  title: 'Receiver median bitrates',
  ofRun: (run) => run.receiver?.bits_per_second ?? null,
  summary: (caseResult) =>
    caseResult.receiver && {
      median: caseResult.receiver.bits_per_second,
      min: caseResult.receiver.min,
      max: caseResult.receiver.max,
      cv: caseResult.receiver.cv,
      low: caseResult.receiver.low ?? null,
      high: caseResult.receiver.high ?? null,
    },
  format: formatBitrate,
  formatIn: formatBitrateIn,
});

const REQUESTS_FIGURE = Object.freeze({
  kind: 'requests',
  title: 'Median requests per second',
  ofRun: (run) => run.requests?.requestsPerSecond ?? null,
  summary: (caseResult) =>
    caseResult.requests && {
      median: caseResult.requests.requestsPerSecond,
      min: caseResult.requests.min,
      max: caseResult.requests.max,
      cv: null,
      low: caseResult.requests.low ?? null,
      high: caseResult.requests.high ?? null,
    },
  format: (value) => `${formatFixed(value, 0)} req/s`,
  formatIn: (value) => formatFixed(value, 0),
});

// The figure of a workload kind ('tcp', 'udp', 'requests').
// ('bitrate' and 'requests' name the figures themselves.)
export function figureFor(kind) {
  return kind === 'requests' ? REQUESTS_FIGURE : BITRATE_FIGURE;
}

// The directions a run measured, 'forward' and/or 'reverse'.
export function directionsOf(result) {
  return [...new Set(result.cases.map((caseResult) => caseResult.direction))];
}
