// @ts-check
import { Chalk } from 'chalk';
import { VERDICT_TEXT } from './comparison-text.js';
import { formatFixed } from './units.js';
import { figureFor } from './sections/index.js';

// `cipherbench history` as text: per machine and workload, per case, one
// row per run, oldest first: when it ran, its median figure (receiver
// bitrate, or requests per second), its spread (the interval when the
// result has one, else min..max over the runs), how many runs, and the
// change from the run before with compare's verdict; then the runs cut
// short, which are in no trend.

export function formatHistoryText(history, { color = false } = {}) {
  const paint = new Chalk({ level: color ? 1 : 0 });
  const apart =
    history.machines.length > 1
      ? [
          paint.yellow(
            `${history.machines.length} machines, engines or workloads: each has its own history below, since their figures measure the machine or the workload as much as the code.`,
          ),
          '',
        ]
      : [];
  const blocks = history.machines.map((machine) => machineBlock(machine, paint));
  return `${[...apart, ...blocks, ...interruptedLines(history.interrupted)].join('\n')}\n`;
}

// The runs cut short, one line each: they are in no trend.
function interruptedLines(interrupted = []) {
  if (interrupted.length === 0) return [];
  return [
    `Left out of the trends, cut short (${interrupted.length}):`,
    ...interrupted.map(
      (run) =>
        `  ${run.startedAt.slice(0, 16).replace('T', ' ')}  ${run.file} (${run.reason}; ${run.machine}; ${run.workload})`,
    ),
    '',
  ];
}

function machineBlock({ machine, workload, kind, runs, cases }, paint) {
  const first = runs[0].startedAt.slice(0, 10);
  const last = runs.at(-1).startedAt.slice(0, 10);
  const figure = figureFor(kind);
  const lines = [
    paint.bold(
      `${machine}; ${workload}: ${runs.length} ${runs.length === 1 ? 'run' : 'runs'}, ${first === last ? first : `${first} to ${last}`}`,
    ),
    '',
  ];
  for (const series of cases) {
    lines.push(`${series.label}${series.direction === 'reverse' ? ' (reverse)' : ''}`);
    const rows = [['  started', 'median', 'spread', 'runs', 'change', 'verdict']];
    for (const point of series.points) rows.push(pointRow(point, figure));
    lines.push(
      ...aligned(rows).map((line, at) =>
        at > 0 && series.points[at - 1].change?.regressed ? paint.red.bold(line) : line,
      ),
      '',
    );
  }
  return lines.join('\n');
}

function pointRow(point, figure) {
  const started = `  ${point.startedAt.slice(0, 16).replace('T', ' ')}`;
  if (point.median === null)
    return [
      started,
      point.status === 'failed' ? 'FAILED' : point.status,
      '',
      '',
      '',
      point.change ? verdictCell(point.change) : '',
    ];
  return [
    started,
    figure.format(point.median),
    spreadCell(point, figure),
    String(point.runs),
    changeCell(point.change),
    verdictCell(point.change),
  ];
}

// Where the software under the relays changed, what changed, not a verdict.
function verdictCell(change) {
  if (!change) return '';
  if (change.changed) return `not judged: ${change.changed.join(', ')}`;
  return VERDICT_TEXT[change.verdict] ?? change.verdict;
}

function spreadCell(point, figure) {
  if (point.interval)
    return `[${figure.formatIn(point.interval.low, point.median)}, ${figure.formatIn(point.interval.high, point.median)}]`;
  if (point.runs < 2) return '';
  return `${figure.formatIn(point.min, point.median)}..${figure.formatIn(point.max, point.median)}`;
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
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd(),
  );
}
