// @ts-check
import { caseLabel } from './case-label.js';
import { environmentRows } from './environment-summary.js';
import { requestColumns, requestsNote } from './requests-table.js';
import { overBoundText } from './udp-bound.js';
import { isReverse, rankingColumns } from './ranking-columns.js';
import { reportView } from './view-model.js';

// The ranking as Markdown, to paste into an issue: the machine in a small
// table, then one row per measured case, then what was not measured.
export function formatMarkdownReport(given) {
  const view = reportView(given);
  return [
    `### ${view.title}`,
    '',
    row(['Environment', '']),
    row(['---', '---']),
    ...environmentRows(view.result).map(([name, value]) => row([escape(name), escape(value)])),
    '',
    ...(view.machine ? [escape(view.machine), ''] : []),
    ...(view.interruption ? [`**Incomplete:** ${view.interruption}.`, ''] : []),
    ...(view.headline ? [`**${escape(view.headline)}**`, ''] : []),
    ...view.sections.ranking.flatMap((section) => RANKING_SECTIONS[section](view)),
    ...notRanked(view.overBound),
    ...notMeasured(view.unranked),
  ].join('\n');
}

// Each section a workload's ranking may name (sections/), as Markdown.
/** @type {Readonly<Record<string, (view: import('./view-model.js').ViewModel) => string[]>>} */
const RANKING_SECTIONS = Object.freeze({ bitrate: rankingTable, requests: requestsTable });

function rankingTable({ ranked, rows, basis, legend, runNotes }) {
  if (ranked.length === 0) return [];
  const columns = rankingColumns(ranked, { ...basis, rows });
  return [
    row(columns.map((column) => column.title)),
    row(columns.map((column) => (column.align === 'right' ? '---:' : '---'))),
    ...ranked.map((caseResult, position) =>
      row(columns.map((column) => cell(column, caseResult, position + 1, ranked))),
    ),
    '',
    `${legend.rankedBy}${legend.marks.map(({ mark, meaning }) => `; **${mark}**: ${meaning}`).join('')}.` +
      `${runNotes ? ` ${runNotes}` : ''}${legendText(legend.unsteady)}`,
    '',
  ];
}

function requestsTable({ requests, result }) {
  if (requests.length === 0) return [];
  const columns = requestColumns(requests);
  return [
    row(columns.map((column) => column.title)),
    row(columns.map((column) => (column.align === 'right' ? '---:' : '---'))),
    ...requests.map((caseResult, position) =>
      row(columns.map((column) => escape(column.cell(caseResult, position + 1)))),
    ),
    '',
    requestsNote(requests, { noiseFloor: result.noiseFloor }),
    '',
  ];
}

// 'Case 2 (reverse) `chain`': a case as the lists under the tables name it.
const caseItem = (caseResult) =>
  `Case ${caseResult.index}${isReverse(caseResult) ? ' (reverse)' : ''} \`${escape(caseLabel(caseResult))}\``;

function notRanked(overBound) {
  if (overBound.length === 0) return [];
  return [
    'Not ranked:',
    '',
    ...overBound.map((caseResult) => `- ${caseItem(caseResult)}: ${escape(overBoundText(caseResult))}`),
    '',
  ];
}

function notMeasured(unranked) {
  if (unranked.length === 0) return [];
  return [
    'Not measured:',
    '',
    ...unranked.flatMap((caseResult) => {
      const [first, ...tail] = caseResult.reason.split('\n');
      return [`- ${caseItem(caseResult)}: ${caseResult.status}: ${escape(first)}`, ...codeBlock(tail)];
    }),
    '',
  ];
}

// ' **mark**: meaning' of a legend entry; '' for none.
function legendText(legend) {
  return legend ? ` **${legend.mark}**: ${escape(legend.meaning)}` : '';
}

// The failing process's last stderr lines under its list item, verbatim: a
// fence longer than any run of backticks in them, so none can close it.
function codeBlock(lines) {
  if (lines.length === 0) return [];
  const longest = Math.max(
    0,
    ...lines.map((line) => Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length))),
  );
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`  ${fence}`, ...lines.map((line) => `  ${line}`), `  ${fence}`];
}

function cell(column, caseResult, rank, ranked) {
  const text = escape(column.cell(caseResult, rank));
  const styled = column.style === 'code' ? `\`${text}\`` : column.style === 'strong' ? `**${text}**` : text;
  const notes = [column.marker?.(caseResult, rank, ranked) ?? []].flat();
  return notes.length > 0 ? `${styled} **${escape(notes.join(', '))}**` : styled;
}

// A '|' inside a cell would end it; a newline would end the table.
function escape(text) {
  return String(text)
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');
}

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}
