// @ts-check
import { axisUnit } from '../chart.js';
import { formatBitrate, formatBitrateIn, formatFixed } from '../units.js';

/**
 * The figure a workload's cases are compared and charted by: its title,
 * its value in one ok run, its summary over the runs (median, min, max),
 * how to print a value, alone or in another value's unit, and a chart's
 * axis up to scaleMax in ticks of step: its unit and each tick's label.
 * @typedef {object} Figure
 * @property {string} kind
 * @property {string} title
 * @property {(run: any) => number | null} ofRun
 * @property {(caseResult: any) => FigureSummary | null | undefined} summary
 * @property {(value: number) => string} format
 * @property {(value: number, unitOf: number) => string} formatIn
 * @property {(scaleMax: number, step: number) => { unit: string, format: (tick: number) => string }} axis
 */
/**
 * @typedef {{ median: number, min: number, max: number, cv: number | null, low: number | null, high: number | null }} FigureSummary
 */

// A case's figure with its spread over runs, whichever field holds its
// median (a receiver's or the request figures).
/** @returns {FigureSummary} */
function spread({ min, max, low, high }, median, cv) {
  return { median, min, max, cv, low: low ?? null, high: high ?? null };
}

/** @type {Figure} */
export const BITRATE_FIGURE = Object.freeze({
  kind: 'bitrate',
  title: 'Receiver median bitrates',
  ofRun: (run) => run.receiver?.bits_per_second ?? null,
  summary: ({ receiver }) => receiver && spread(receiver, receiver.bits_per_second, receiver.cv),
  format: formatBitrate,
  formatIn: formatBitrateIn,
  axis: axisUnit,
});

/** @type {Figure} */
export const REQUESTS_FIGURE = Object.freeze({
  kind: 'requests',
  title: 'Median requests per second',
  ofRun: (run) => run.requests?.requestsPerSecond ?? null,
  summary: ({ requests }) => requests && spread(requests, requests.requestsPerSecond, null),
  format: (value) => `${formatFixed(value, 0)} req/s`,
  formatIn: (value) => formatFixed(value, 0),
  axis: () => ({ unit: 'req/s', format: String }),
});
