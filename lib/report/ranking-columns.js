// @ts-check
import { caseLabel } from './case-label.js';
import { efficiencyMark } from './ceiling-text.js';
import { cannotTellFromAnchor, intervalText, isRepeated, levelsText, pairCostText, relativeCell } from './ranking.js';
import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';

// The ranking table's columns, shared by the Markdown and HTML exports so a
// figure reads the same in both. Cells are plain text; `style` ('code' or
// 'strong') and `marker` (a word flagging the row) are dressed by each
// format; a marker is given (caseResult, rank, ranked) and is a note, a
// list of notes, or null. Columns for
// spread, cost, transport, latency, ceiling and direction appear only when
// some ranked case has them, so a plain run stays narrow. A title may
// depend on the run: `title(ranked, basis)`.
/**
 * @typedef {object} RankingColumn
 * @property {string | ((ranked: any[], basis: any) => string)} title
 * @property {'left' | 'right'} [align]
 * @property {string} [style]
 * @property {(ranked: any[], basis: any) => boolean} [when]
 * @property {(caseResult: any, rank: number) => string} cell
 * @property {(caseResult: any, rank: number, ranked: any[], basis: any) => string | string[] | null} [marker]
 */

/** @type {RankingColumn[]} */
const COLUMNS = [
  { title: '#', align: 'right', cell: (caseResult, rank) => String(rank) },
  { title: 'Case', align: 'right', cell: (caseResult) => String(caseResult.index) },
  {
    title: (cases) => (cases.some((caseResult) => caseResult.impl) ? 'Chain or implementation' : 'Chain'),
    style: 'code',
    cell: (caseResult) => caseLabel(caseResult),
  },
  { title: 'Direction', when: (cases) => cases.some(isReverse), cell: (caseResult) => caseResult.direction },
  { title: 'Sender', align: 'right', cell: (caseResult) => formatBitrate(caseResult.sender.bits_per_second) },
  {
    title: (cases) =>
      withLevel(
        'Receiver',
        cases.map((caseResult) => caseResult.receiver),
      ),
    align: 'right',
    style: 'strong',
    cell: (caseResult) =>
      [formatBitrate(caseResult.receiver.bits_per_second), intervalText(caseResult.receiver)].filter(Boolean).join(' '),
    // Ranks whose intervals overlap are not an order; a case the stopping
    // rule gave up on says how wide it stayed (the view model's marks).
    marker: (caseResult, rank, ranked, { rows }) => {
      const { marks, convergence } = rows[rank - 1];
      return [...marks, convergence].filter(Boolean);
    },
  },
  {
    title: (cases, { anchor, byCost }) =>
      `${byCost ? 'CPU s/GB relative' : 'Relative'} to ${anchor?.label ?? 'the anchor'}`,
    align: 'right',
    when: (cases) => cases.some((caseResult) => caseResult.relative),
    cell: relativeCell,
    marker: (caseResult) => (cannotTellFromAnchor(caseResult) ? 'cannot tell apart' : null),
  },
  {
    title: 'Receiver min..max',
    align: 'right',
    // With 3 rounds the interval is min..max: the column would repeat it.
    when: (cases) => cases.some((caseResult) => isRepeated(caseResult) && !intervalIsMinMax(caseResult.receiver)),
    cell: (caseResult) => (isRepeated(caseResult) ? spread(caseResult.receiver) : ''),
  },
  {
    title: 'CV',
    align: 'right',
    when: (cases) => cases.some(isRepeated),
    cell: (caseResult) => (isRepeated(caseResult) ? percent(caseResult.receiver.cv) : ''),
    marker: (caseResult) => (caseResult.unstable ? 'unstable' : null),
  },
  {
    title: 'CPU s/GB client, server',
    align: 'right',
    when: (cases) => cases.some((caseResult) => caseResult.cost),
    cell: ({ cost }) =>
      cost ? `${formatFixed(cost.client.cpuSecondsPerGB, 2)}, ${formatFixed(cost.server.cpuSecondsPerGB, 2)}` : '',
  },
  {
    title: (cases) =>
      withLevel(
        'CPU s/GB pair',
        cases.map((caseResult) => caseResult.cost?.pair),
      ),
    align: 'right',
    when: (cases, { byCost }) => byCost,
    cell: ({ cost }) => (cost ? pairCostText(cost) : ''),
    marker: ({ cost }) =>
      cost?.saturatedRuns > 0
        ? `saturated in ${cost.saturatedRuns} ${cost.saturatedRuns === 1 ? 'run' : 'runs'}`
        : null,
  },
  {
    title: 'Wire overhead',
    align: 'right',
    when: (cases) => cases.some((caseResult) => caseResult.wire),
    cell: ({ wire }) => (wire ? percent(wire.overhead) : ''),
  },
  {
    title: 'Transport',
    when: (cases) => cases.some((caseResult) => caseResult.negotiated),
    cell: ({ negotiated }) => negotiated ?? '',
  },
  {
    title: 'RTT p50 / p99 (ms)',
    align: 'right',
    when: (cases) => cases.some((caseResult) => caseResult.latency),
    cell: ({ latency }) => (latency ? `${formatFixed(latency.rtt.p50, 3)} / ${formatFixed(latency.rtt.p99, 3)}` : ''),
  },
  {
    title: 'Efficiency',
    align: 'right',
    when: (cases) => cases.some((caseResult) => caseResult.ceiling),
    cell: ({ ceiling }) => (ceiling ? percent(ceiling.efficiency) : ''),
    marker: ({ ceiling }) => efficiencyMark(ceiling),
  },
];

// `basis` is { anchor, byCost, noiseFloor, rows }: the --relative-to
// case (ranking.js relativeAnchor), or null; whether the ranking is by
// cost; the run's noise floor, or null; the view model's ranked rows
// (view-model.js), whose marks the receiver column carries.
export function rankingColumns(ranked, basis) {
  return COLUMNS.filter((column) => !column.when || column.when(ranked, basis)).map((column) => ({
    ...column,
    title: typeof column.title === 'function' ? column.title(ranked, basis) : column.title,
    marker: column.marker && ((caseResult, rank, all) => column.marker(caseResult, rank, all, basis)),
  }));
}

const intervalIsMinMax = ({ low, high, min, max }) => low === min && high === max;

// 'Receiver [75% interval]': a column's title with the level its
// intervals actually hold; the title alone when none has one.
function withLevel(title, summaries) {
  const level = levelsText(summaries);
  return level ? `${title} [${level} interval]` : title;
}

export function percent(fraction) {
  return `${formatFixed(fraction * 100, 1)}%`;
}

export function isReverse(caseResult) {
  return caseResult.direction === 'reverse';
}

function spread(side) {
  const unit = formatBitrate(side.bits_per_second).split(' ')[1];
  return `${formatBitrateIn(side.min, side.bits_per_second)}..${formatBitrateIn(side.max, side.bits_per_second)} ${unit}`;
}
