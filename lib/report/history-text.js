import { Chalk } from 'chalk';
import { VERDICT_TEXT } from './comparison.js';
import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';

// `cipherbench history` as text: per machine, per case, one row per run,
// oldest first: when it ran, the median receiver bitrate, its spread (the
// interval when the result has one, else min..max over the runs), how many
// runs, and the change from the run before with compare's verdict.

export function formatHistoryText(history, { color = false } = {}) {
  const paint = new Chalk({ level: color ? 1 : 0 });
  const apart = history.machines.length > 1
    ? [paint.yellow(`${history.machines.length} machines or engines: each has its own history below, since their figures measure the machine as much as the code.`), '']
    : [];
  const blocks = history.machines.map((machine) => machineBlock(machine, paint));
  return `${[...apart, ...blocks].join('\n')}\n`;
}

function machineBlock({ machine, runs, cases }, paint) {
  const first = runs[0].startedAt.slice(0, 10);
  const last = runs.at(-1).startedAt.slice(0, 10);
  const lines = [
    paint.bold(`${machine}: ${runs.length} ${runs.length === 1 ? 'run' : 'runs'}, ${first === last ? first : `${first} to ${last}`}`),
    '',
  ];
  for (const series of cases) {
    lines.push(`${series.label}${series.direction === 'reverse' ? ' (reverse)' : ''}`);
    const rows = [['  started', 'median', 'spread', 'runs', 'change', 'verdict']];
    for (const point of series.points) rows.push(pointRow(point));
    lines.push(...aligned(rows).map((line, at) => (at > 0 && series.points[at - 1].change?.regressed ? paint.red.bold(line) : line)), '');
  }
  const incomplete = runs.filter((run) => run.complete === false).length;
  if (incomplete > 0) lines.push(`${incomplete} of these runs were cut short: their missing cases have no row.`, '');
  return lines.join('\n');
}

function pointRow(point) {
  const started = `  ${point.startedAt.slice(0, 16).replace('T', ' ')}`;
  if (point.median === null) return [started, point.status === 'failed' ? 'FAILED' : point.status, '', '', '', point.change ? VERDICT_TEXT[point.change.verdict] ?? '' : ''];
  return [
    started,
    formatBitrate(point.median),
    spreadCell(point),
    String(point.runs),
    changeCell(point.change),
    point.change ? VERDICT_TEXT[point.change.verdict] ?? point.change.verdict : '',
  ];
}

function spreadCell(point) {
  if (point.interval) return `[${formatBitrateIn(point.interval.low, point.median)}, ${formatBitrateIn(point.interval.high, point.median)}]`;
  if (point.runs < 2) return '';
  return `${formatBitrateIn(point.min, point.median)}..${formatBitrateIn(point.max, point.median)}`;
}

function changeCell(change) {
  if (!change || change.deltaPercent === null) return '';
  const signed = (value) => `${value > 0 ? '+' : ''}${formatFixed(value, 1)}%`;
  return change.intervalPercent
    ? `${signed(change.deltaPercent)} [${signed(change.intervalPercent.low)}, ${signed(change.intervalPercent.high)}]`
    : signed(change.deltaPercent);
}

// Columns padded to their widest cell; the last never, so no line ends in blanks.
function aligned(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ').trimEnd());
}
