// @ts-check
// The JSON archive is the result object itself (docs/result.md), so any later
// tool reads exactly what the text report was made from.
/** @param {import('../contracts.js').Result} result */
export function formatJsonReport(result) {
  return `${JSON.stringify(result, null, 2)}\n`;
}
