// @ts-check
import { caseLabel } from './case-label.js';
import { environmentRows } from './environment-summary.js';
import { latencyCells, latencyKind, latencyTitles } from './latency-table.js';
import { isRepeated, levelsText } from './ranking.js';
import { overBoundText } from './udp-bound.js';
import { requestColumns, requestsNote } from './requests-table.js';
import { isReverse, rankingColumns } from './ranking-columns.js';
import { axisUnit, CHART_STYLE, escape, niceTicks, round } from './chart.js';
import { formatBitrate } from './units.js';
import { reportView } from './view-model.js';

// One self-contained HTML file: inline CSS and an inline SVG chart drawn
// here, no script and nothing fetched, so it opens offline, as a CI artifact
// or a mail attachment, and looks the same years later.

// Each case's label sits above its two bars, so no label is ever cut at
// the left edge. Across, the drawing is laid out in percent of its width
// (at most 760 px, PAGE_STYLE) while its text keeps its size: the axis spans the left
// 70 %, the figures to the right of the bars take the rest, so on a phone
// the whole chart, every figure and every mark included, is on screen
// without scrolling sideways. Down, it is laid out in pixels.
const CHART = {
  plotStart: 1,
  plotSpan: 70,
  legendHeight: 28,
  referenceLine: 16,
  labelHeight: 16,
  bottom: 44,
  barHeight: 12,
  barGap: 2,
  groupGap: 10,
  capHeight: 8,
  // A label's characters at most, with its unstable marker: about what a
  // phone's 358 px of chart holds at 12 px.
  labelLength: 50,
};
// Rows that show the machine's ceilings rather than an implementation to
// rank against: at 10 to 30 times a cipher's bitrate, drawn as bars they
// would push every cipher into the left fifth of the axis. They are drawn
// as marker lines instead (or named at the right edge when beyond it).
const CEILING_ROWS = new Set(['direct', 'plain']);

export function formatHtmlReport(given) {
  const view = reportView(given);
  const { result } = view;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(`${view.title}, ${result.startedAt}`)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>${escape(view.title)}</h1>
${incomplete(view.interruption)}<section id="environment">
<h2>Environment</h2>
<div class="scroll">
<table>
${environmentRows(result)
  .map(([name, value]) => `<tr><th scope="row">${escape(name)}</th><td>${escape(value)}</td></tr>`)
  .join('\n')}
</table>
</div>
${view.machine ? `<p class="note">${escape(view.machine)}</p>\n` : ''}</section>
${view.sections.ranking.map((section) => RANKING_SECTIONS[section](view)).join('')}${notRankedSection(view.overBound)}${notMeasuredSection(view.unranked)}</body>
</html>
`;
}

// Each section a workload's ranking may name (sections/), as HTML: the
// bitrate's table, chart and latency; the requests' table, which carries
// the disturbed headline when no bitrate ranking above it did.
/** @type {Readonly<Record<string, (view: import('./view-model.js').ViewModel) => string>>} */
const RANKING_SECTIONS = Object.freeze({
  bitrate: (view) =>
    view.ranked.length > 0
      ? [rankingSection(view), chartSection(view.ranked), latencySection(view.ranked)].join('')
      : '',
  requests: ({ requests, ranked, result, headline }) =>
    requestsSection(requests, result.noiseFloor, ranked.length > 0 ? '' : headline),
});

// ' <span class="marker">mark</span>: meaning' of a legend entry; '' for none.
function legendMark(legend) {
  return legend ? ` <span class="marker">${escape(legend.mark)}</span>: ${escape(legend.meaning)}` : '';
}

// A sentence every reader must see, in the warning's colours; '' for none.
function warning(text) {
  return text ? `<p class="warning">${escape(text)}</p>\n` : '';
}

function incomplete(interruption) {
  return interruption ? `<p class="warning"><strong>Incomplete:</strong> ${escape(interruption)}.</p>\n` : '';
}

// Above the table, where a reader looks first, the disturbed headline;
// under it, what ranks and what each mark means.
function rankingSection({ ranked, rows, basis, headline, legend, runNotes }) {
  const columns = rankingColumns(ranked, { ...basis, rows });
  const header = columns.map((column) => `<th${alignClass(column)}>${escape(column.title)}</th>`).join('');
  const tableRows = ranked.map((caseResult, position) => {
    const cells = columns
      .map(
        (column) =>
          `<td${alignClass(column)} data-title="${escape(column.title)}"><span>${cell(column, caseResult, position + 1, ranked)}</span></td>`,
      )
      .join('');
    return `<tr${caseResult.unstable ? ' class="unstable"' : ''}>${cells}</tr>`;
  });
  const marks = legend.marks.map(({ mark, meaning }) => `;${legendMark({ mark, meaning })}`).join('');
  return `<section id="ranking">
<h2>Ranking</h2>
${warning(headline)}<div class="scroll">
<table class="stacks">
<thead><tr>${header}</tr></thead>
<tbody>
${tableRows.join('\n')}
</tbody>
</table>
</div>
<p class="note">${escape(legend.rankedBy)}${marks}.${runNotes ? ` ${escape(runNotes)}` : ''}${legendMark(legend.unsteady)}</p>
</section>
`;
}

function cell(column, caseResult, rank, ranked) {
  const text = column.cell(caseResult, rank);
  const styled =
    column.style === 'code'
      ? chainCode(text)
      : column.style === 'strong'
        ? `<strong>${escape(text)}</strong>`
        : escape(text);
  // Each note whole on its line: a wrap falls between two notes.
  const notes = [column.marker?.(caseResult, rank, ranked) ?? []].flat();
  if (notes.length === 0) return styled;
  return `${styled} <span class="marker">${notes.map((note) => `<span class="mark">${escape(note)}</span>`).join(', ')}</span>`;
}

// A chain or row name that wraps only at its spaces (after each ' + '
// between presets) and before a preset's parameters, never at the hyphens
// inside a name ('ss-aead-cipher(aes-256-gcm)'), where a browser would
// otherwise break it.
function chainCode(label) {
  const name = (part) => `<span class="name">${escape(part)}</span>`;
  const words = label.split(' ').map((word) =>
    word
      .split(/(?<=.)(?=\()/)
      .map(name)
      .join('<wbr>'),
  );
  return `<code>${words.join(' ').replaceAll(' <span class="name">+</span>', '&nbsp;+')}</code>`;
}

function alignClass(column) {
  return column.align === 'right' ? ' class="number"' : '';
}

// Horizontal bars, one group per ranked case in rank order: sender above
// receiver, each with a min..max whisker when the case ran more than once.
// The axis is linear and fits the bars; the ceiling rows (direct, plain)
// are marker lines on it. Every mark carries its case and bitrate as data
// attributes, so a test (or a reader's devtools) can check the drawing
// against the numbers.
function chartSection(ranked) {
  const scale = chartScale(ranked);
  const { barCases, markerCases, ticks, top, height, plotBottom, at, axis } = scale;
  const grid = ticks.map(
    (tick) =>
      `<line class="grid" x1="${at(tick)}" y1="${top - 6}" x2="${at(tick)}" y2="${plotBottom}"/>` +
      `<text class="tick" x="${at(tick)}" y="${plotBottom + 16}" text-anchor="${tick === 0 ? 'start' : 'middle'}">${axis.format(tick)}</text>`,
  );
  const groups = barCases.map((caseResult, position) =>
    caseGroup(caseResult, top + position * GROUP_HEIGHT, ranked, scale),
  );
  const references = markerCases.map((caseResult, position) => referenceLine(caseResult, position, scale));
  const whiskers = barCases.some(isRepeated) ? `${whiskerLegend(barCases)}. ` : '';
  const ceilingsNote =
    markerCases.length > 0
      ? "direct and plain are the machine's and our data path's ceilings: drawn as lines, not bars, so the cases keep the width of the axis."
      : '';
  return `<section id="chart">
<h2>Bitrate</h2>
<div class="scroll">
<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="${height}" role="img" aria-label="sender and receiver bitrate per case">
${CHART_LEGEND}
${grid.join('\n')}
${references.join('\n')}
${groups.join('\n')}
<text class="axis" x="${round(CHART.plotStart + CHART.plotSpan / 2)}%" y="${height - 8}" text-anchor="middle">${axis.unit}</text>
</svg>
</div>
${whiskers || ceilingsNote ? `<p class="note">${escape(`${whiskers}${ceilingsNote}`)}</p>\n` : ''}</section>
`;
}

const GROUP_HEIGHT = CHART.labelHeight + 2 * CHART.barHeight + CHART.barGap + CHART.groupGap;

// What the drawing is cut from: the cases drawn as bars and those drawn as
// marker lines (direct and plain, unless nothing else ranked), its height,
// and the linear axis that fits the bars, with `at` and `length` placing a
// bitrate on it in percent of the drawing's width, as SVG takes it.
function chartScale(ranked) {
  const ceilings = ranked.filter((caseResult) => CEILING_ROWS.has(caseResult.impl));
  const [barCases, markerCases] =
    ceilings.length < ranked.length
      ? [ranked.filter((caseResult) => !CEILING_ROWS.has(caseResult.impl)), ceilings]
      : [ranked, []];
  const top = CHART.legendHeight + markerCases.length * CHART.referenceLine + 8;
  const height = top + barCases.length * GROUP_HEIGHT + CHART.bottom;
  const peak = Math.max(
    ...barCases.flatMap((caseResult) => [caseResult.sender, caseResult.receiver].map((side) => side.max)),
  );
  const ticks = niceTicks(peak);
  const scaleMax = ticks.at(-1);
  return {
    barCases,
    markerCases,
    ticks,
    scaleMax,
    top,
    height,
    plotBottom: height - CHART.bottom,
    at: (bitsPerSecond) => `${round(CHART.plotStart + (bitsPerSecond / scaleMax) * CHART.plotSpan)}%`,
    length: (bitsPerSecond) => `${round((bitsPerSecond / scaleMax) * CHART.plotSpan)}%`,
    axis: axisUnit(scaleMax, ticks[1] - ticks[0]),
  };
}

// One ranked case's group: its label, then its sender and receiver bars.
function caseGroup(caseResult, groupTop, ranked, { at, length }) {
  const rank = ranked.indexOf(caseResult) + 1;
  const unstable = caseResult.unstable ? ' unstable' : '';
  const label = clip(
    `${rank}. Case ${caseResult.index}${isReverse(caseResult) ? ' reverse' : ''}: ${methodLabel(caseResult)}`,
    CHART.labelLength - unstable.length,
  );
  const marks = [
    ['sender', caseResult.sender],
    ['receiver', caseResult.receiver],
  ].map(([role, side], row) => {
    const y = groupTop + CHART.labelHeight + row * (CHART.barHeight + CHART.barGap);
    const data = `data-case="${caseResult.index}" data-direction="${escape(caseResult.direction)}" data-rank="${rank}"`;
    const bar = `<rect class="bar ${role}" ${data} data-bps="${side.bits_per_second}" x="${CHART.plotStart}%" y="${y}" width="${length(side.bits_per_second)}" height="${CHART.barHeight}"><title>${escape(`${role} ${formatBitrate(side.bits_per_second)}`)}</title></rect>`;
    const whisker = isRepeated(caseResult) ? whiskerMarks(role, side, data, at, y + CHART.barHeight / 2) : '';
    const value = `<text class="value" x="${at(Math.max(side.bits_per_second, side.max))}" dx="6" y="${y + CHART.barHeight - 2}">${escape(formatBitrate(side.bits_per_second))}</text>`;
    return bar + whisker + value;
  });
  const marker = unstable ? `<tspan class="marker">${unstable}</tspan>` : '';
  return `<g class="case" data-case="${caseResult.index}"><text class="label" x="${CHART.plotStart}%" y="${groupTop + CHART.labelHeight - 4}">${escape(label)}${marker}</text>${marks.join('')}</g>`;
}

// A ceiling row (direct, plain) as a line across the bars at its receiver
// bitrate; one beyond the axis is named at its right edge, pointing on.
function referenceLine(caseResult, position, { at, scaleMax, plotBottom }) {
  const bps = caseResult.receiver.bits_per_second;
  const y = CHART.legendHeight + position * CHART.referenceLine + 10;
  const data = `data-case="${caseResult.index}" data-direction="${escape(caseResult.direction)}" data-bps="${bps}"`;
  const text = `${caseResult.impl === 'direct' ? 'direct' : caseResult.impl}: receiver ${formatBitrate(bps)}`;
  if (bps > scaleMax) {
    return `<g class="reference off-scale" ${data}><title>${escape(caseLabel(caseResult))}</title><text x="100%" dx="-4" y="${y}" text-anchor="end">${escape(`${text}, off this scale →`)}</text></g>`;
  }
  const [anchor, dx] = bps > scaleMax / 2 ? ['end', -4] : ['start', 4];
  return `<g class="reference" ${data}><title>${escape(caseLabel(caseResult))}</title><line x1="${at(bps)}" y1="${y - 10}" x2="${at(bps)}" y2="${plotBottom}"/><text x="${at(bps)}" dx="${dx}" y="${y}" text-anchor="${anchor}">${escape(text)}</text></g>`;
}

const LEGEND_Y = 16;
const CHART_LEGEND =
  `<g class="legend"><rect class="bar sender" x="${CHART.plotStart}%" y="${LEGEND_Y - 10}" width="12" height="12"/><text x="${CHART.plotStart}%" dx="18" y="${LEGEND_Y}">sender</text>` +
  `<rect class="bar receiver" x="${CHART.plotStart}%" transform="translate(80 0)" y="${LEGEND_Y - 10}" width="12" height="12"/><text x="${CHART.plotStart}%" dx="98" y="${LEGEND_Y}">receiver</text>` +
  '</g>';

// A label too long for the drawing's width ends in an ellipsis; the full
// text is in the table above.
function clip(text, most) {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}

// The error bar of a side: its median's interval when it has one (low..high),
// else the min..max of its runs (an older result, or two runs).
function whiskerMarks(role, side, data, at, y) {
  const hasInterval = side.low !== null && side.low !== undefined;
  const [lowest, highest] = hasInterval ? [side.low, side.high] : [side.min, side.max];
  const [from, to] = [at(lowest), at(highest)];
  const cap = CHART.capHeight / 2;
  const interval = hasInterval ? ` data-low="${side.low}" data-high="${side.high}" data-level="${side.level}"` : '';
  return (
    `<g class="whisker ${role}" ${data} data-min="${side.min}" data-max="${side.max}"${interval}>` +
    `<line x1="${from}" y1="${y}" x2="${to}" y2="${y}"/>` +
    `<line x1="${from}" y1="${y - cap}" x2="${from}" y2="${y + cap}"/>` +
    `<line x1="${to}" y1="${y - cap}" x2="${to}" y2="${y + cap}"/>` +
    '</g>'
  );
}

function whiskerLegend(cases) {
  const level = levelsText(cases.map((caseResult) => caseResult.receiver));
  if (!level) return 'bar: median; whisker: min..max over runs';
  return `bar: median; error bar: its ${level} interval (min..max with 2 runs or fewer)`;
}

function requestsSection(requests, noiseFloor, headline) {
  if (requests.length === 0) return '';
  const columns = requestColumns(requests);
  const rows = requests.map((caseResult, position) =>
    columns
      .map((column) => {
        const text = escape(column.cell(caseResult, position + 1));
        return column.align === 'right' ? `<td class="number">${text}</td>` : `<td>${text}</td>`;
      })
      .join(''),
  );
  return `<section id="requests">
<h2>Requests</h2>
${warning(headline)}<div class="scroll">
<table>
<thead><tr>${columns.map((column) => `<th${column.align === 'right' ? ' class="number"' : ''}>${escape(column.title)}</th>`).join('')}</tr></thead>
<tbody>
${rows.map((cells) => `<tr>${cells}</tr>`).join('\n')}
</tbody>
</table>
</div>
<p class="note">${escape(requestsNote(requests, { noiseFloor }))}</p>
</section>
`;
}

function latencySection(ranked) {
  const measured = ranked.filter((caseResult) => caseResult.latency);
  if (measured.length === 0) return '';
  const unit = Object.values(measured[0].latency)[0].unit;
  const header = ['Case', 'Chain', 'Direction', 'Kind', ...latencyTitles()];
  const rows = measured.flatMap((caseResult) =>
    Object.entries(caseResult.latency).map(([kind, figures]) =>
      [
        `<td class="number">${caseResult.index}</td>`,
        `<td>${chainCode(caseLabel(caseResult))}</td>`,
        `<td>${escape(caseResult.direction)}</td>`,
        `<td>${escape(latencyKind(kind))}</td>`,
        ...latencyCells(figures).map((cell) => `<td class="number">${cell}</td>`),
      ].join(''),
    ),
  );
  return `<section id="latency">
<h2>Latency (${escape(unit)})</h2>
<div class="scroll">
<table>
<thead><tr>${header.map((title, column) => `<th${column === 0 || column > 3 ? ' class="number"' : ''}>${escape(title)}</th>`).join('')}</tr></thead>
<tbody>
${rows.map((cells) => `<tr>${cells}</tr>`).join('\n')}
</tbody>
</table>
</div>
<p class="note">rtt: 1 KB request and response round trips, one after another; connect: a fresh connection to its first echoed byte. Percentiles are nearest-rank.</p>
</section>
`;
}

// UDP rows that lost more than their bound: measured, not ranked.
function notRankedSection(overBound) {
  return caseListSection('not-ranked', 'Not ranked', overBound, (caseResult) => escape(overBoundText(caseResult)));
}

function notMeasuredSection(unranked) {
  return caseListSection('not-measured', 'Not measured', unranked, (caseResult) => {
    // Under the reason, the failing process's last stderr lines, verbatim.
    const [first, ...tail] = caseResult.reason.split('\n');
    const stderr = tail.length > 0 ? `<pre>${escape(tail.join('\n'))}</pre>` : '';
    return `${escape(caseResult.status)}: ${escape(first)}${stderr}`;
  });
}

// A section listing cases apart from the ranking, each by its number and
// label, then `why` (HTML) it is there; nothing when there are none.
function caseListSection(id, title, cases, why) {
  if (cases.length === 0) return '';
  const items = cases.map(
    (caseResult) =>
      `<li>Case ${caseResult.index}${isReverse(caseResult) ? ' (reverse)' : ''} <code>${escape(caseLabel(caseResult))}</code>: ${why(caseResult)}</li>`,
  );
  return `<section id="${id}">
<h2>${title}</h2>
<ul>
${items.join('\n')}
</ul>
</section>
`;
}

// The chart names a chain by its last preset's parameters (the cipher
// method), a reference row by its label: the full chain is in the ranking
// table beside it.
function methodLabel(caseResult) {
  if (caseResult.impl) return caseResult.label;
  const last = caseResult.presets.at(-1);
  return last.params ? Object.values(last.params).join(', ') : caseLabel(caseResult);
}

// The page's style, the history page's too (history-html.js); the
// chart's own rules come from chart.js.
export const PAGE_STYLE = `${CHART_STYLE}
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; margin: 2rem auto; max-width: 1240px; padding: 0 1rem; }
h1 { font-size: 1.5rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; }
.scroll { max-width: 100%; overflow-x: auto; }
th, td { padding: 0.25rem 0.5rem; border-bottom: 1px solid #dde1e8; text-align: left; vertical-align: top; }
th { background: #f3f5f8; }
.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.number { white-space: normal; }
#environment td { overflow-wrap: anywhere; }
code { font: 12px ui-monospace, "SFMono-Regular", Menlo, monospace; overflow-wrap: break-word; }
code .name { white-space: nowrap; }
#chart svg { max-width: 760px; }
/* A phone's width holds no ranking table: each case becomes a block of
   "column: value" lines, so the receiver figure that ranks it and its marks
   are on screen rather than past the right edge. */
@media (max-width: 640px) {
  table.stacks, table.stacks tbody, table.stacks tr, table.stacks td { display: block; }
  table.stacks thead { display: none; }
  table.stacks tr { padding: 0.35rem 0; border-bottom: 1px solid #dde1e8; }
  table.stacks td { display: grid; grid-template-columns: minmax(6rem, 40%) 1fr; column-gap: 0.5rem; border: 0; padding: 0.05rem 0.25rem; text-align: left; }
  table.stacks td::before { content: attr(data-title); color: #556; white-space: normal; }
  table.stacks td:has(> span:empty) { display: none; }
  table.stacks td.number { white-space: normal; }
}
.marker { color: #b35900; font-weight: 600; }
/* A rank's marks go under its figure, wrapping there: beside it, on one
   line, they made the ranking wider than a laptop's page. */
table.stacks td .marker { display: block; white-space: normal; font-size: 0.9em; }
table.stacks td .marker .mark { white-space: nowrap; }
tr.unstable { background: #fff6e5; }
.warning { background: #fff0f0; border-left: 4px solid #c62828; padding: 0.5rem 0.75rem; }
.note { color: #556; font-size: 0.9em; }
pre { font: 12px ui-monospace, "SFMono-Regular", Menlo, monospace; background: #f3f5f8; padding: 0.4rem 0.6rem; margin: 0.3rem 0; overflow-x: auto; }
`;
