// @ts-check
import { fieldProblem } from './reference-fields.js';

// The Mux.Cool fields of the V2Ray and Xray rows: `mux: true` turns on
// their client's multiplexing (its outbound's `mux` setting), `concurrency`
// sessions a connection (default 8, as both default); their servers serve
// a mux connection of any protocol unasked.
export const MUX_FIELDS = ['mux', 'concurrency'];
const DEFAULT_CONCURRENCY = 8;
const MOST_CONCURRENCY = 1024;

/** @param {{ mux?: unknown, concurrency?: unknown }} reference */
export function muxProblems({ mux, concurrency }) {
  if (mux !== undefined && typeof mux !== 'boolean') return [fieldProblem('mux', 'must be true or false')];
  if (concurrency !== undefined && !mux) return [fieldProblem('concurrency', 'belongs to mux: give mux: true')];
  if (
    concurrency !== undefined &&
    !(Number.isInteger(concurrency) && Number(concurrency) >= 1 && Number(concurrency) <= MOST_CONCURRENCY)
  )
    return [fieldProblem('concurrency', `must be an integer from 1 to ${MOST_CONCURRENCY}`)];
  return [];
}

// The client's concurrency when the row asks for mux, else undefined.
/** @param {{ mux?: boolean, concurrency?: number }} reference */
export const muxConcurrency = ({ mux, concurrency }) => (mux ? (concurrency ?? DEFAULT_CONCURRENCY) : undefined);

// An outbound's `mux` setting for that concurrency (none when undefined).
/** @param {number | undefined} concurrency */
export const muxSetting = (concurrency) => (concurrency ? { mux: { enabled: true, concurrency } } : {});
