import { UNSTABLE_CV } from '../runner/statistics.js';
import { chainLabel } from './chain-label.js';
import { environmentRows } from './environment-summary.js';
import { isRepeated, rankCases } from './ranking.js';
import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';

// The ranking as Markdown, to paste into an issue: the machine in a small
// table, then one row per measured case. Columns for spread, cost, latency,
// ceiling and direction appear only when some case has them, so a plain
// run stays narrow enough to read on GitHub.

const COLUMNS = [
  { title: '#', align: 'right', cell: (caseResult, rank) => String(rank) },
  { title: 'Case', align: 'right', cell: (caseResult) => String(caseResult.index) },
  { title: 'Chain', cell: (caseResult) => `\`${chainLabel(caseResult.presets)}\`` },
  { title: 'Direction', when: (cases) => cases.some(isReverse), cell: (caseResult) => caseResult.direction },
  { title: 'Sender', align: 'right', cell: (caseResult) => formatBitrate(caseResult.sender.bits_per_second) },
  { title: 'Receiver', align: 'right', cell: (caseResult) => `**${formatBitrate(caseResult.receiver.bits_per_second)}**` },
  {
    title: 'Receiver min..max',
    align: 'right',
    when: (cases) => cases.some(isRepeated),
    cell: (caseResult) => (isRepeated(caseResult) ? spread(caseResult.receiver) : ''),
  },
  {
    title: 'CV',
    align: 'right',
    when: (cases) => cases.some(isRepeated),
    cell: (caseResult) => (isRepeated(caseResult) ? `${percent(caseResult.receiver.cv)}${caseResult.unstable ? ' **unstable**' : ''}` : ''),
  },
  {
    title: 'CPU s/GB client, server',
    align: 'right',
    when: (cases) => cases.some((caseResult) => caseResult.cost),
    cell: ({ cost }) => (cost ? `${formatFixed(cost.client.cpuSecondsPerGB, 2)}, ${formatFixed(cost.server.cpuSecondsPerGB, 2)}` : ''),
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
  },
];

export function formatMarkdownReport(result) {
  const { ranked, unranked } = rankCases(result);
  const columns = COLUMNS.filter((column) => !column.when || column.when(ranked));
  const lines = [
    `### cipherbench: ${ranked.length} of ${result.cases.length} cases measured`,
    '',
    '| Environment | |',
    '| --- | --- |',
    ...environmentRows(result).map(([name, value]) => row([name, value])),
    '',
  ];
  if (!result.complete) {
    const cause = result.interrupted?.startsWith('SIG') ? `interrupted by ${result.interrupted}` : 'the run was cut short';
    lines.push(`**Incomplete:** ${cause}.`, '');
  }
  if (ranked.length > 0) {
    lines.push(
      row(columns.map((column) => column.title)),
      row(columns.map((column) => (column.align === 'right' ? '---:' : '---'))),
      ...ranked.map((caseResult, position) => row(columns.map((column) => column.cell(caseResult, position + 1)))),
      '',
      'Ranked by the bitrate iperf3 received'
        + `${ranked.some(isRepeated) ? `, the median over runs; **unstable**: the runs varied by more than ${percent(UNSTABLE_CV)} (cv), so the rank may be luck` : ''}.`,
      '',
    );
  }
  if (unranked.length > 0) {
    lines.push('Not measured:', '');
    for (const caseResult of unranked) {
      const direction = isReverse(caseResult) ? ' (reverse)' : '';
      lines.push(`- Case ${caseResult.index}${direction} \`${chainLabel(caseResult.presets)}\`: ${caseResult.status}: ${escape(caseResult.reason.split('\n')[0])}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

// A '|' inside a cell would end it; a newline would end the table.
function escape(text) {
  return String(text).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

function row(cells) {
  return `| ${cells.map(escape).join(' | ')} |`;
}

function spread(side) {
  return `${formatBitrateIn(side.min, side.bits_per_second)}..${formatBitrateIn(side.max, side.bits_per_second)} ${formatBitrate(side.bits_per_second).split(' ')[1]}`;
}

function percent(fraction) {
  return `${formatFixed(fraction * 100, 1)}%`;
}

function isReverse(caseResult) {
  return caseResult.direction === 'reverse';
}
