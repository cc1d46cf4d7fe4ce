// @ts-check
import { formatFixed } from './units.js';

// The latency figures of docs/result.md ({ rtt, connect }, each with a
// count and milliseconds), as every table shows them: the text report,
// the HTML report and `cipherbench latency`.
const LATENCY_FIGURES = Object.freeze(['count', 'mean', 'p50', 'p90', 'p99', 'p999', 'max']);

export const latencyTitles = () => LATENCY_FIGURES.map((name) => (name === 'p999' ? 'p99.9' : name));

// A kind as the tables print it: the result's udpRtt (version 8) keeps the
// word the tables printed before, udp_rtt, so what people read stays put.
export const latencyKind = (kind) => (kind === 'udpRtt' ? 'udp_rtt' : kind);

export const latencyCells = (figures) =>
  LATENCY_FIGURES.map((name) => (name === 'count' ? String(figures.count) : formatFixed(figures[name], 3)));

// A header row and one row a kind, first column left, numbers right; the
// first column at least labelWidth wide.
export function latencyTable(latency, { labelWidth = 0 } = {}) {
  const kinds = Object.entries(latency);
  const rows = [
    [`latency (${kinds[0][1].unit})`, ...latencyTitles()],
    ...kinds.map(([kind, figures]) => [latencyKind(kind), ...latencyCells(figures)]),
  ];
  return alignTable(rows, { labelWidth });
}

export function alignTable(rows, { labelWidth = 0 } = {}) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(Math.max(labelWidth, widths[0])) : cell.padStart(widths[column]),
      )
      .join('  '),
  );
}
