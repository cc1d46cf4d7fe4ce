import { UNSTABLE_CV, upgradeResult } from '../result.js';
import { caseLabel } from './case-label.js';
import { unsteadyLegend } from './ceiling-text.js';
import { environmentRows } from './environment-summary.js';
import { machineLoadText } from './machine-load.js';
import {
  disturbedHeadline,
  isCostRanked,
  isRepeated,
  rankCases,
  rankRequests,
  relativeReference,
  runNotesText,
} from './ranking.js';
import { requestColumns, requestsNote } from './requests-table.js';
import { overBoundText } from './udp-bound.js';
import { isReverse, percent, rankingColumns } from './ranking-columns.js';

// The ranking as Markdown, to paste into an issue: the machine in a small
// table, then one row per measured case, then what was not measured.
export function formatMarkdownReport(given) {
  const result = upgradeResult(given);
  const { ranked, unranked, overBound } = rankCases(result);
  const columns = rankingColumns(ranked, {
    reference: relativeReference(result),
    byCost: isCostRanked(result),
    noiseFloor: result.noiseFloor,
  });
  const lines = [
    `### cipherbench: ${ranked.length + overBound.length + rankRequests(result).length} of ${result.cases.length} cases measured`,
    '',
    row(['Environment', '']),
    row(['---', '---']),
    ...environmentRows(result).map(([name, value]) => row([escape(name), escape(value)])),
    '',
  ];
  const load = machineLoadText(result);
  if (load) lines.push(escape(load), '');
  if (!result.complete) {
    const cause = result.interrupted?.startsWith('SIG')
      ? `interrupted by ${result.interrupted}`
      : 'the run was cut short';
    lines.push(`**Incomplete:** ${cause}.`, '');
  }
  const headline = disturbedHeadline([...ranked, ...rankRequests(result)]);
  if (headline) lines.push(`**${escape(headline)}**`, '');
  if (ranked.length > 0) {
    const notes = runNotesText(result);
    lines.push(
      row(columns.map((column) => column.title)),
      row(columns.map((column) => (column.align === 'right' ? '---:' : '---'))),
      ...ranked.map((caseResult, position) =>
        row(columns.map((column) => cell(column, caseResult, position + 1, ranked))),
      ),
      '',
      (isCostRanked(result)
        ? "Ranked by the relay pair's CPU seconds per GB at the offered rate, lowest first (saturated runs left out); cases without relays after, by"
        : 'Ranked by') +
        ' the bitrate the receiving end got' +
        `${ranked.some(isRepeated) ? `, the median over runs; **unstable**: the runs varied by more than ${percent(UNSTABLE_CV)} (cv), so the rank may be luck; **overlaps #N-#M**: its interval overlaps those of ranks N to M, above or below, so their order may be the noise's` : ''}` +
        `${result.noiseFloor ? `; **within noise of #N**: closer to rank N than direct's own spread (cv ${percent(result.noiseFloor.cv)})` : ''}` +
        '; **disturbed**: other processes took the CPU it needed; **cipher faster than #N**: a case of the same chain ranked above it although its cipher alone is slower.' +
        `${notes ? ` ${notes}` : ''}` +
        legendText(unsteadyLegend(ranked)),
      '',
    );
  }
  const requests = rankRequests(result);
  if (requests.length > 0) {
    const columns = requestColumns(requests);
    lines.push(
      row(columns.map((column) => column.title)),
      row(columns.map((column) => (column.align === 'right' ? '---:' : '---'))),
      ...requests.map((caseResult, position) =>
        row(columns.map((column) => escape(column.cell(caseResult, position + 1)))),
      ),
      '',
      `${requestsNote(requests, { noiseFloor: result.noiseFloor })}`,
      '',
    );
  }
  if (overBound.length > 0) {
    lines.push(
      'Not ranked:',
      '',
      ...overBound.map(
        (caseResult) =>
          `- Case ${caseResult.index}${isReverse(caseResult) ? ' (reverse)' : ''} \`${escape(caseLabel(caseResult))}\`: ${escape(overBoundText(caseResult))}`,
      ),
      '',
    );
  }
  if (unranked.length > 0) {
    lines.push('Not measured:', '');
    for (const caseResult of unranked) {
      const direction = isReverse(caseResult) ? ' (reverse)' : '';
      const [first, ...tail] = caseResult.reason.split('\n');
      lines.push(
        `- Case ${caseResult.index}${direction} \`${escape(caseLabel(caseResult))}\`: ${caseResult.status}: ${escape(first)}`,
        ...codeBlock(tail),
      );
    }
    lines.push('');
  }
  return lines.join('\n');
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
