// @ts-check
import { escape, niceTicks, round } from './chart.js';
import { PAGE_STYLE } from './html-report.js';
import { formatFixed } from './units.js';
import { figureFor } from './sections/index.js';

// `cipherbench history --html`: one self-contained page (no script, nothing
// fetched), as the run's HTML report is, drawn with the same chart code. Per
// machine and workload, one small chart per case, as asv draws a
// benchmark's history: time across, the median figure (receiver bitrate,
// or requests per second) as a line from 0 up, the
// spread of each run as a band, each run a point whose tooltip gives its
// figures, its verdict against the run before, and the run's environment.

// Drawn 640 units wide and scaled to the page, at most 640 px: at a phone's
// 390 px the whole chart still shows, its text at about 8 px.
const CHART = { width: 640, height: 190, left: 70, right: 24, top: 14, bottom: 40, point: 4.5 };

export function formatHistoryHtml(history) {
  const runCount = history.machines.reduce((sum, machine) => sum + machine.runs.length, 0);
  const title = `cipherbench history: ${runCount} ${runCount === 1 ? 'run' : 'runs'}`;
  const apart =
    history.machines.length > 1
      ? `<p class="warning">${history.machines.length} machines, engines or workloads: each has its own history below, since their figures measure the machine or the workload as much as the code.</p>\n`
      : '';
  const interrupted =
    (history.interrupted ?? []).length === 0
      ? ''
      : `<h2>Left out of the trends, cut short</h2>
<ul class="note">${history.interrupted.map((run) => `<li>${escape(`${run.startedAt.slice(0, 16).replace('T', ' ')} ${run.file} (${run.reason}; ${run.machine}; ${run.workload})`)}</li>`).join('')}</ul>
`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>${PAGE_STYLE}${STYLE}</style>
</head>
<body>
<h1>${escape(title)}</h1>
${apart}${history.machines.map(machineSection).join('')}${interrupted}<p class="note">Each point is one archived run: the median figure, and as a band the min..max over its runs (or its interval). Hover a point for its figures, its change from the run before as <code>cipherbench compare</code> judges it, and the environment it ran in. A red point got slower beyond the runs' noise; a green one faster.</p>
</body>
</html>
`;
}

function machineSection(machine, at) {
  const environments = new Map(machine.runs.map((run) => [run.file, run.environment]));
  return `<section class="machine" id="machine-${at}">
<h2>${escape(`${machine.machine}; ${machine.workload}`)}</h2>
<p class="note">${machine.runs.length} ${machine.runs.length === 1 ? 'run' : 'runs'}, ${escape(machine.runs[0].startedAt.slice(0, 10))} to ${escape(machine.runs.at(-1).startedAt.slice(0, 10))}.</p>
${machine.cases.map((series) => caseChart(series, machine.runs, environments, figureFor(machine.kind))).join('')}</section>
`;
}

function caseChart(series, runs, environments, figure) {
  const measured = series.points.filter((point) => point.median !== null);
  const name = `${series.label}${series.direction === 'reverse' ? ' (reverse)' : ''}`;
  if (measured.length === 0) return `<h3>${escape(name)}</h3>\n<p class="note">Never measured on this machine.</p>\n`;
  const scale = historyScale(measured, runs, figure);
  const { x, y, ticks, axis, plotTop, plotBottom } = scale;
  const grid = ticks.map(
    (tick) =>
      `<line class="grid" x1="${PLOT_LEFT}" y1="${round(y(tick))}" x2="${PLOT_RIGHT}" y2="${round(y(tick))}"/>` +
      `<text class="tick" x="${PLOT_LEFT - 8}" y="${round(y(tick) + 5)}" text-anchor="end">${axis.format(tick)}</text>`,
  );
  const line = `<polyline class="trend" points="${measured.map((point) => `${round(x(Date.parse(point.startedAt)))},${round(y(point.median))}`).join(' ')}"/>`;
  const points = measured.map((point) => runPoint(point, scale, environments, figure));
  return `<h3>${escape(name)}</h3>
<div class="scroll">
<svg class="history" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="${escape(`${figure.title.toLowerCase()} of ${name}, per run`)}">
${grid.join('\n')}
${dateTicksText(scale).join('\n')}
<text class="axis" x="16" y="${round((plotTop + plotBottom) / 2)}" text-anchor="middle" transform="rotate(-90 16 ${round((plotTop + plotBottom) / 2)})">${axis.unit}</text>
${spreadBand(measured, scale)}
${line}
${points.join('\n')}
</svg>
</div>
`;
}

const PLOT_LEFT = CHART.left;
const PLOT_RIGHT = CHART.width - CHART.right;

// A case's chart's axes: time across (the runs' first to last start), its
// figure up, from 0 to a round value above the highest median or spread.
function historyScale(measured, runs, figure) {
  const times = runs.map((run) => Date.parse(run.startedAt));
  const [first, last] = [Math.min(...times), Math.max(...times)];
  const plotTop = CHART.top;
  const plotBottom = CHART.height - CHART.bottom;
  const high = (point) => Math.max(point.median, point.max ?? 0, point.interval?.high ?? 0);
  const ticks = niceTicks(Math.max(...measured.map(high)));
  const scaleMax = ticks.at(-1);
  return {
    first,
    last,
    plotTop,
    plotBottom,
    ticks,
    x: (time) =>
      last === first
        ? (PLOT_LEFT + PLOT_RIGHT) / 2
        : PLOT_LEFT + ((time - first) / (last - first)) * (PLOT_RIGHT - PLOT_LEFT),
    y: (value) => plotBottom - (value / scaleMax) * (plotBottom - plotTop),
    axis: figure.axis(scaleMax, ticks[1] - ticks[0]),
  };
}

function dateTicksText({ first, last, x, plotBottom }) {
  const tickTimes = dateTicks(first, last);
  const labels = timeLabels(tickTimes);
  return tickTimes.map((time, i, all) => {
    const anchor = all.length === 1 ? 'middle' : i === 0 ? 'start' : i === all.length - 1 ? 'end' : 'middle';
    return `<text class="tick" x="${round(x(time))}" y="${plotBottom + 22}" text-anchor="${anchor}">${labels[i]}</text>`;
  });
}

// The band of the runs' intervals (or min..max of a point of several runs
// without one) along the trend; '' when fewer than two points have one.
function spreadBand(measured, { x, y }) {
  const spread = (point) =>
    point.interval ? [point.interval.low, point.interval.high] : point.runs > 1 ? [point.min, point.max] : null;
  const band = measured.filter(spread);
  if (band.length <= 1) return '';
  return (
    `<path class="band" d="M${band.map((point) => `${round(x(Date.parse(point.startedAt)))},${round(y(spread(point)[1]))}`).join('L')}` +
    `L${[...band]
      .reverse()
      .map((point) => `${round(x(Date.parse(point.startedAt)))},${round(y(spread(point)[0]))}`)
      .join('L')}Z"/>`
  );
}

function runPoint(point, { x, y }, environments, figure) {
  const verdict = point.change?.verdict;
  const kind = verdict === 'slower' ? ' slower' : verdict === 'faster' ? ' faster' : '';
  return (
    `<circle class="run${kind}" data-file="${escape(point.file)}" data-bps="${point.median}" cx="${round(x(Date.parse(point.startedAt)))}" cy="${round(y(point.median))}" r="${CHART.point}">` +
    `<title>${escape(tooltip(point, environments.get(point.file), figure))}</title></circle>`
  );
}

function tooltip(point, environment, figure) {
  const spread = point.interval
    ? `, interval ${figure.formatIn(point.interval.low, point.median)}..${figure.formatIn(point.interval.high, point.median)}`
    : point.runs > 1
      ? `, ${figure.formatIn(point.min, point.median)}..${figure.formatIn(point.max, point.median)}`
      : '';
  const lines = [
    `${point.startedAt.slice(0, 16).replace('T', ' ')}  ${figure.format(point.median)} (${point.runs} ${point.runs === 1 ? 'run' : 'runs'}${spread})`,
  ];
  if (point.change) {
    const delta =
      point.change.deltaPercent === null
        ? ''
        : `${point.change.deltaPercent > 0 ? '+' : ''}${formatFixed(point.change.deltaPercent, 1)}%: `;
    const verdict = point.change.changed
      ? `not judged: ${point.change.changed.join(', ')}`
      : point.change.verdict.replaceAll('-', ' ');
    lines.push(`change from the run before: ${delta}${verdict}`);
  }
  lines.push(...environment.map(([name, value]) => `${name}: ${value}`), `file: ${point.file}`);
  return lines.join('\n');
}

// Four dates spread evenly from the first run to the last.
function dateTicks(first, last) {
  if (last === first) return [first];
  return Array.from({ length: 4 }, (_, i) => first + ((last - first) * i) / 3);
}

// Each tick by its date, as the history's text gives times (UTC); where two
// ticks share a date, by the time too: '10:30' when all share one day (the
// first tick gives the date), '11-28 10:30' otherwise.
function timeLabels(times) {
  const iso = times.map((time) => new Date(time).toISOString());
  const days = iso.map((text) => text.slice(0, 10));
  if (new Set(days).size === days.length) return days;
  if (new Set(days).size === 1)
    return iso.map((text, i) => (i === 0 ? `${days[0]} ${text.slice(11, 16)}` : text.slice(11, 16)));
  return iso.map((text) => `${text.slice(5, 10)} ${text.slice(11, 16)}`);
}

const STYLE = `
h3 { font-size: 1rem; margin: 1.2rem 0 0.3rem; font-weight: 600; }
svg.history { width: 100%; max-width: ${CHART.width}px; height: auto; font-size: 15px; }
svg.history .trend { fill: none; stroke: #2d6cb5; stroke-width: 1.5; }
svg.history .band { fill: #9ebbe0; opacity: 0.45; }
svg.history circle.run { fill: #2d6cb5; }
svg.history circle.run.slower { fill: #c62828; }
svg.history circle.run.faster { fill: #2e7d32; }
`;
