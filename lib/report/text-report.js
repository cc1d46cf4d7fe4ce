// @ts-check
import { Chalk } from 'chalk';
import { upgradeCase, upgradeResult } from '../result.js';
import { caseLabel } from './case-label.js';
import { ceilingDirectionText, unsteadyCeilingText } from './ceiling-text.js';
import { casesFileRow } from './cases-source.js';
import {
  cannotTellFromAnchor,
  convergenceNote,
  intervalText,
  isRepeated,
  pairCostText,
  relativeCell,
} from './ranking.js';
import { isOverBound, overBoundText, searchedRateText } from './udp-bound.js';
import { requestColumns, requestsNote } from './requests-table.js';
import { formatBitrate, formatBitrateIn, formatBytes, formatFixed, formatInterval } from './units.js';
import { alignTable, latencyTable } from './latency-table.js';
import { linkLabel } from './link-label.js';
import { caseWorkload, sectionsOf } from './sections/index.js';
import { reportView } from './view-model.js';

// The text report keeps the shape of the blinksocks benchmark report, so its
// readers find the same sections, rows and ranking line where they expect
// them. Everything here only reads the result object of docs/result.md.
// Repeats, cost, latency, ceiling and direction add lines only when the
// result has them, so a single plain run still prints the seed's shape.

const DASHES = '-----------------------------------------';

// Colour is decided by the caller (a terminal or not), never guessed from
// stdout here, because the same text is also archived without colour.
function painter(color) {
  return new Chalk({ level: color ? 1 : 0 });
}

export function formatHeader(given, { color = false } = {}) {
  const result = upgradeResult(given);
  const paint = painter(color);
  const sections = headerSections(result);
  // One label column for every section, as wide as the seed's 16 or the
  // longest name (process.versions has cjs_module_lexer) plus a space.
  const width = Math.max(16, ...sections.flatMap(([, rows]) => rows.map(([name]) => name.length + 1)));
  const text = sections
    .map(([title, rows]) =>
      [paint.bold(title), ...rows.map(([name, value]) => `${name.padEnd(width)}${value}`)].join('\n'),
    )
    .join('\n\n');
  // The run's own warnings (a case listed twice), before any case runs.
  const warnings = result.warnings.map((warning) => paint.yellow(`warning: ${warning}`));
  return warnings.length > 0 ? `${text}\n\n${warnings.join('\n')}` : text;
}

// The header's sections, [title, [[name, value]]] each: the tool, the
// machine, Node's versions, the programs that moved the bytes.
function headerSections(result) {
  const { tool, environment: env } = result;
  const program = (title, { version, path }) => [
    title,
    [
      ['version', version ?? 'unknown'],
      ['path', path],
    ],
  ];
  return [
    [`${tool.name}:`, [['version', tool.version], ...engineRows(result), ...casesRows(result.options)]],
    ['Operating System:', machineRows(env)],
    ['Node.js Versions:', Object.entries(env.node)],
    env.iperf3.path ? program('iperf3:', env.iperf3) : ['iperf3:', [['version', 'not found']]],
    ...(env.wrk ? [program('wrk:', env.wrk)] : []),
    // The reference rows' programs, each as it said its version.
    ...(env.peers ? [['Peers:', Object.entries(env.peers)]] : []),
    ...remoteSections(env.remote),
  ];
}

function machineRows({ cpu, memory, os }) {
  const cores =
    cpu.physicalCores && cpu.physicalCores !== cpu.cores
      ? `${cpu.cores} (${cpu.physicalCores} physical)`
      : `${cpu.cores}`;
  return [
    ['cpu', cpu.model],
    ['cores', cores],
    ['memory', formatBytes(memory)],
    ['type', os.type],
    ['platform', os.platform],
    ['arch', os.arch],
    ['release', os.release],
    ['distro', os.distro],
    ['aes', cpu.aes === null ? 'unknown' : cpu.aes ? 'yes' : 'no'],
  ];
}

// `workload` is the result's; a case given alone is taken for the one its
// figures are of.
export function formatCaseBlock(given, { color = false, workload = undefined } = {}) {
  const caseResult = upgradeCase(given);
  const paint = painter(color);
  const lines = [
    `------------ Case ${caseResult.index} ---------------------`,
    caseLabel(caseResult),
    ...directionLines(caseResult),
  ];
  const saturated = caseResult.runs.filter((run) => run.saturated).length;
  if (saturated > 0)
    lines.push(
      paint.yellow.bold(
        `saturated        ${saturated} of ${caseResult.runs.length} runs fell short of the offered rate: left out of the cost`,
      ),
    );
  if (caseResult.status === 'ok') {
    const { caseBlock, ownText = {} } = sectionsOf(workload ?? caseWorkload(caseResult));
    lines.push(...caseBlock.flatMap((section) => (ownText[section] ?? CASE_SECTIONS[section])(caseResult, paint)));
  } else {
    // The reason may carry the relay's stderr tail; indenting it keeps the
    // block readable while leaving every line of it in the report.
    const [first, ...rest] = caseResult.reason.split('\n');
    lines.push(`${statusLabel(caseResult.status, paint)}: ${first}`, ...rest.map((line) => `  ${line}`));
  }
  // A figure that was asked for but could not be measured says why.
  for (const warning of caseResult.warnings) lines.push(paint.yellow(`warning: ${warning}`));
  lines.push(DASHES);
  return lines.join('\n');
}

export function formatRanking(given, { color = false } = {}) {
  const view = reportView(given);
  const paint = painter(color);
  const rankWidth = Math.max(2, String(view.ranked.length).length);
  const loud = (text) => [paint.yellow.bold(text), ''];
  return [
    '(ranking):',
    '',
    ...(view.interruption
      ? loud(`INCOMPLETE: ${view.interruption}; ${view.measured} of ${view.result.cases.length} cases measured.`)
      : []),
    ...(view.headline ? loud(view.headline) : []),
    ...view.sections.ranking.flatMap((section) => RANKING_SECTIONS[section](view, paint, rankWidth)),
    ...(view.notes.length > 0 ? ['', ...view.notes.map((note) => toned(note, paint))] : []),
    ...(view.unstable ? ['', toned(view.unstable, paint)] : []),
    ...notRankedLines(view, paint, rankWidth),
    ...(view.ending ? ['', view.ending] : []),
  ].join('\n');
}

// Each section a workload's ranking may name (sections/), laid out as text.
/** @type {Readonly<Record<string, (view: import('./view-model.js').ViewModel, paint: import('chalk').ChalkInstance, rankWidth: number) => string[]>>} */
const RANKING_SECTIONS = Object.freeze({
  bitrate: (view, paint, rankWidth) => view.rows.map((row) => rankLine(row, view, paint, rankWidth)),
  requests: (view) => requestRanking(view),
});

// Each section a workload's case block may name (sections/), as lines
// under the block's title; a figure the case does not have gives none.
/** @type {Readonly<Record<string, (caseResult: import('../contracts.js').CaseResult, paint: import('chalk').ChalkInstance) => string[]>>} */
const CASE_SECTIONS = Object.freeze({
  transfer: (caseResult, paint) => [
    'Interval         Transfer     Bitrate',
    measurementRow(caseResult.sender, 'sender', paint),
    measurementRow(caseResult.receiver, 'receiver', paint),
    ...spreadLines(caseResult, paint),
  ],
  udp: udpLines,
  cost: ({ cost }) => costLines(cost),
  wire: ({ wire }) => wireLines(wire),
  negotiated: ({ negotiated }) => negotiatedLines(negotiated),
  latency: ({ latency }) => latencyLines(latency),
  ceiling: ({ ceiling }, paint) => ceilingLines(ceiling, paint),
  profile: ({ runs }) => profileLines(runs),
});

// A note in the colour its tone asks for.
function toned({ text, tone }, paint) {
  if (tone === 'alarm') return paint.yellow.bold(text);
  return tone === 'warn' ? paint.yellow(text) : text;
}

// ' 1: Case 0, Bitrate=[...], median of 3, cv 2.1%, overlaps #2, chain'.
function rankLine({ caseResult, rank, marks, convergence }, { basis }, paint, rankWidth) {
  const { byCost, anchor } = basis;
  const bitrates = [caseResult.sender, caseResult.receiver].map((side) =>
    paint.bold(formatBitrate(side.bits_per_second)),
  );
  const interval = intervalText(caseResult.receiver);
  const unstable = caseResult.unstable ? ` ${paint.yellow.bold('UNSTABLE')}` : '';
  const repeats = isRepeated(caseResult)
    ? [`median of ${okRuns(caseResult).length}, cv ${percent(caseResult.receiver.cv)}${unstable}`]
    : [];
  const notes = [convergence, marks.join(', ')].filter(Boolean);
  return [
    `${String(rank).padStart(rankWidth)}: ${caseName(caseResult)}`,
    ...(byCost && caseResult.cost ? [`CPU s/GB=${paint.bold(pairCostText(caseResult.cost))}`] : []),
    `Bitrate=[${bitrates.join(', ')}${interval ? ` ${interval}` : ''}]`,
    ...repeats,
    ...notes.map((note) => paint.yellow(note)),
    ...relativeLines(caseResult, anchor, paint, byCost),
    caseLabel(caseResult),
  ].join(', ');
}

// A request run ranks in its table, under the heading; the notes on how
// the machine was and what the marks mean follow it.
function requestRanking({ requests, result }) {
  if (requests.length === 0) return [];
  const columns = requestColumns(requests);
  const rows = [
    columns.map((column) => column.title),
    ...requests.map((caseResult, position) => columns.map((column) => column.cell(caseResult, position + 1))),
  ];
  return [...alignColumns(rows, columns), '', requestsNote(requests, { noiseFloor: result.noiseFloor })];
}

// The UDP rows over their loss bound, then the cases not measured with the
// first line of why (the full text is in the case block).
function notRankedLines({ overBound, unranked }, paint, rankWidth) {
  if (unranked.length + overBound.length === 0) return [];
  const indent = ' '.repeat(rankWidth);
  return [
    '',
    '(not ranked):',
    '',
    ...overBound.map(
      (caseResult) =>
        `${indent}  ${caseName(caseResult)}, ${paint.yellow(overBoundText(caseResult))}, ${caseLabel(caseResult)}`,
    ),
    ...unranked.map(
      (caseResult) =>
        `${indent}  ${caseName(caseResult)}, ${statusLabel(caseResult.status, paint)}: ${caseResult.reason.split('\n')[0]}, ${caseLabel(caseResult)}`,
    ),
  ];
}

// Rows of cells under a header, each column aligned as its table says.
function alignColumns(rows, columns) {
  const widths = columns.map((_, at) => Math.max(...rows.map((row) => row[at].length)));
  return rows.map((row) =>
    row
      .map((cell, at) => (columns[at].align === 'right' ? cell.padStart(widths[at]) : cell.padEnd(widths[at])))
      .join('  ')
      .trimEnd(),
  );
}

export function formatTextReport(result, { color = false } = {}) {
  return (
    [
      formatHeader(result, { color }),
      `running ${result.cases.length} ${result.cases.length === 1 ? 'case' : 'cases'}...`,
      ...result.cases.map((caseResult) => formatCaseBlock(caseResult, { color, workload: result.workload })),
      formatRanking(result, { color }),
    ].join('\n\n') + '\n'
  );
}

// '0.83 x shadowsocks-libev aes-256-gcm' as hyperfine says '1.23 x faster
// than': the median receiver bitrate against the --relative-to case's.
// At a fixed rate the ratio is of CPU seconds per GB: '3.23 x the CPU per GB of'.
function relativeLines(caseResult, anchor, paint, byCost) {
  const cell = relativeCell(caseResult);
  if (!cell) return [];
  if (cell === 'anchor') return [paint.bold('anchor')];
  const apart = cannotTellFromAnchor(caseResult) ? ` (cannot be told apart from ${anchor.label})` : '';
  return [`${paint.bold(cell)} ${byCost ? 'the CPU per GB of ' : ''}${anchor.label}${apart}`];
}

// With --remote, the server's half ran on another machine: the header
// describes it too, as that host reported itself.
function remoteSections(remote) {
  if (!remote) return [];
  return [
    [
      `Server host (${remote.destination}, ${remote.address}):`,
      [
        ['cpu', remote.cpu.model],
        ['cores', String(remote.cpu.cores)],
        ['memory', remote.memory],
        ['distro', remote.os.distro],
        ['release', remote.os.release],
        ['aes', remote.cpu.aes === null ? 'unknown' : remote.cpu.aes ? 'yes' : 'no'],
        ['node', remote.node.node],
        ['openssl', remote.node.openssl],
        ['iperf3', remote.iperf3.version ?? 'not found'],
      ],
    ],
  ];
}

// Which engine moved the bytes; results from before the built-in engine
// (all iperf3) keep the seed's header.
function engineRows({ workload, options: { engine, link } }) {
  if (!engine) return [];
  const builtIn = sectionsOf(workload).builtInEngine;
  return [['engine', engine === 'node' ? builtIn : engine], ...(link ? [['link', linkLabel(link)]] : [])];
}

// Which cases file ran; results given cases in code, or from before this
// row, have none.
function casesRows(options) {
  return options.casesFile ? [['cases', casesFileRow(options)]] : [];
}

function measurementRow(side, role, paint) {
  return `${formatInterval(0, side.seconds)}  ${formatBytes(side.bytes)}  ${paint.bold(formatBitrate(side.bits_per_second))}  ${role}`;
}

function directionLines(caseResult) {
  const lines = [];
  if (isReverse(caseResult)) lines.push('direction        reverse (iperf3 -R: iperf3 -s sends)');
  if (caseResult.parallel > 1) lines.push(`parallel         ${caseResult.parallel} streams (iperf3 -P)`);
  return lines;
}

// 'receiver  median 2.45 Gbits/sec  min 2.31  max 2.52  cv 3.1%  (3 runs)':
// min and max in the median's unit, so the eye compares digits only.
function spreadLines(caseResult, paint) {
  if (!isRepeated(caseResult)) return [];
  const runs = caseResult.runs;
  const ok = okRuns(caseResult).length;
  const count = ok === runs.length ? `(${runs.length} runs)` : `(${ok} of ${runs.length} runs ok)`;
  const line = (role, side) =>
    [
      role.padEnd(8),
      `median ${paint.bold(formatBitrate(side.bits_per_second))}${intervalText(side) ? ` ${intervalText(side)}` : ''}`,
      `min ${formatBitrateIn(side.min, side.bits_per_second)}`,
      `max ${formatBitrateIn(side.max, side.bits_per_second)}`,
      `cv ${percent(side.cv)}`,
      count,
    ].join('  ');
  const failedRuns = runs
    .filter((run) => run.status !== 'ok')
    .map(
      (run) =>
        `run ${run.round + 1} of ${runs.length}: ${statusLabel(run.status, paint)}: ${run.reason.split('\n')[0]}`,
    );
  const note = convergenceNote(caseResult);
  return [
    line('sender', caseResult.sender),
    line('receiver', caseResult.receiver) +
      (caseResult.unstable ? `  ${paint.yellow.bold('UNSTABLE')}` : '') +
      (note ? `  ${paint.yellow.bold(note)}` : ''),
    ...failedRuns,
  ];
}

// With --udp: what iperf3 -u's receiver counted (medians over the runs),
// what a --max-loss search found, and whether a run at a fixed rate lost
// more than the bound (a search says so on its own line).
function udpLines(caseResult, paint) {
  const { udp } = caseResult;
  if (!udp) return [];
  const lost = `${formatFixed(udp.lost_percent, 2)}% (${udp.lost_packets} of ${udp.packets})`;
  const searched = searchedRateText(caseResult);
  const marked = isOverBound(caseResult) ? paint.yellow.bold : (text) => text;
  const bisected = searched ? [marked(`${'max rate'.padEnd(LABEL_WIDTH)}  ${searched}`)] : [];
  const bound =
    isOverBound(caseResult) && !searched
      ? [paint.yellow.bold(`${'loss bound'.padEnd(LABEL_WIDTH)}  ${overBoundText(caseResult)}`)]
      : [];
  return [
    ...alignTable(
      [
        ['udp', 'offered', 'datagram', 'lost', 'jitter', 'out of order'],
        [
          '',
          formatBitrate(udp.offeredBps),
          `${udp.length} B`,
          lost,
          `${formatFixed(udp.jitter_ms, 3)} ms`,
          String(udp.out_of_order),
        ],
      ],
      { labelWidth: LABEL_WIDTH },
    ),
    ...bisected,
    ...bound,
  ];
}

function costLines(cost) {
  if (!cost) return [];
  const rows = [['cost', 'cpu s', 'cpu s/GB', 'peak RSS']];
  for (const relay of ['client', 'server']) {
    const { cpuSeconds, cpuSecondsPerGB, peakRssBytes } = cost[relay];
    rows.push([
      `relay ${relay}`,
      formatFixed(cpuSeconds, 2),
      formatFixed(cpuSecondsPerGB, 2),
      formatBytes(peakRssBytes),
    ]);
  }
  // The pair's figure with its interval, once there is one (two runs or more).
  const pair =
    cost.pair && cost.pair.low !== null && cost.pair.low !== undefined
      ? [`${'relay pair'.padEnd(LABEL_WIDTH)}  cpu s/GB ${pairCostText(cost)}`]
      : [];
  return [...alignTable(rows, { labelWidth: LABEL_WIDTH }), ...pair];
}

// Under the 16-wide label column the iperf3 rows use.
const LABEL_WIDTH = 15;

function latencyLines(latency) {
  return latency ? latencyTable(latency, { labelWidth: LABEL_WIDTH }) : [];
}

// On a link: what crossed it per byte of payload, TCP/IP and the chain's
// framing included, so a disguise's cost shows beside a plain row's.
function wireLines(wire) {
  if (!wire) return [];
  return [
    `${'wire'.padEnd(15)}  ${percent(1 + wire.overhead)} of the payload crossed the link (overhead ${percent(wire.overhead)})`,
  ];
}

// With --profile: each relay's busiest functions by self time, from the
// last run that has a profile, and where its .cpuprofile is; or why the
// case has none.
function profileLines(runs) {
  const profiled = runs.filter((run) => run.profile);
  if (profiled.length === 0) return [];
  const { profile } = profiled.findLast((run) => run.profile.top) ?? profiled.at(-1);
  const lines = [];
  for (const role of ['client', 'server'].filter((name) => profile.top?.[name])) {
    const top = profile.top[role];
    lines.push(`${`profile ${role}`.padEnd(LABEL_WIDTH)}  ${profile.files[role]}`);
    for (const entry of top.slice(0, 5)) {
      lines.push(
        `${''.padEnd(LABEL_WIDTH)}  ${percent(entry.selfShare).padStart(5)}  ${entry.function}${entry.where ? `  ${entry.where}` : ''}`,
      );
    }
  }
  if (profile.reason) lines.push(`${'profile'.padEnd(LABEL_WIDTH)}  none: ${profile.reason}`);
  return [...lines, ...syscallLines(profile.syscalls)];
}

// What strace -c counted over --profile's extra transfer: read and write
// calls per GB and the bytes each moved, the figure that shows buffer sizes.
function syscallLines(syscalls) {
  if (!syscalls) return [];
  if (syscalls.reason) return [`${'syscalls'.padEnd(LABEL_WIDTH)}  none: ${syscalls.reason}`];
  const count = (value) => (value >= 1000 ? `${formatFixed(value / 1000, 1)}k` : formatFixed(value, 0));
  const size = (bytes) => (bytes === null ? '-' : formatBytes(bytes));
  const lines = [
    `${'syscalls'.padEnd(LABEL_WIDTH)}  strace -c -f over a ${formatFixed(syscalls.seconds, 1)} s transfer of ${formatBytes(syscalls.bytes)} (not the bitrate above)`,
  ];
  for (const role of ['client', 'server'].filter((name) => syscalls[name])) {
    const { readsPerGB, writesPerGB, bytesPerRead, bytesPerWrite } = syscalls[role];
    lines.push(
      `${`relay ${role}`.padEnd(LABEL_WIDTH)}  ${count(readsPerGB)} reads/GB (${size(bytesPerRead)} each)  ${count(writesPerGB)} writes/GB (${size(bytesPerWrite)} each)`,
    );
  }
  return lines;
}

// What a TLS chain's client negotiated: the suite is the cipher measured.
function negotiatedLines(negotiated) {
  return negotiated ? [`${'transport'.padEnd(LABEL_WIDTH)}  ${negotiated}`] : [];
}

// The ceiling's two directions with their rounds' spread, and the
// efficiency, marked when it rests on an unsteady ceiling.
function ceilingLines(ceiling, paint) {
  if (!ceiling) return [];
  const unsteady = unsteadyCeilingText(ceiling);
  const rounds = ceiling.rounds > 1 ? `, ${ceiling.rounds} rounds` : '';
  const efficiency = `efficiency ${percent(ceiling.efficiency)}`;
  return [
    [
      'ceiling'.padEnd(15),
      ceilingDirectionText(ceiling, 'encrypt'),
      ceilingDirectionText(ceiling, 'decrypt'),
      `(${formatBytes(ceiling.size)} reads, one core${rounds})`,
      unsteady ? paint.yellow.bold(`${efficiency} of an unsteady ceiling`) : efficiency,
    ].join('  '),
    ...(unsteady ? [paint.yellow.bold(`${''.padEnd(LABEL_WIDTH)}  ${unsteady}`)] : []),
  ];
}

function okRuns(caseResult) {
  return caseResult.runs.filter((run) => run.status === 'ok');
}

// With --both a chain appears twice under one index; the direction tells
// the two apart.
function caseName(caseResult) {
  return `Case ${caseResult.index}${isReverse(caseResult) ? ' (reverse)' : ''}`;
}

function isReverse(caseResult) {
  return caseResult.direction === 'reverse';
}

function percent(fraction) {
  return `${formatFixed(fraction * 100, 1)}%`;
}

function statusLabel(status, paint) {
  return status === 'failed' ? paint.red('FAILED') : paint.yellow('SKIPPED');
}
