import { Chalk } from 'chalk';
import { UNSTABLE_CV, upgradeCase, upgradeResult } from '../result.js';
import { caseLabel } from './case-label.js';
import { casesFileRow } from './cases-source.js';
import { isRepeated, rankCases, relativeCell, relativeReference } from './ranking.js';
import { formatBitrate, formatBitrateIn, formatBytes, formatFixed, formatInterval } from './units.js';
import { alignTable, latencyTable } from './latency-table.js';
import { linkLabel } from './link-label.js';

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
  const { tool, environment: env } = result;
  const aes = env.cpu.aes === null ? 'unknown' : env.cpu.aes ? 'yes' : 'no';
  const cores = env.cpu.physicalCores && env.cpu.physicalCores !== env.cpu.cores
    ? `${env.cpu.cores} (${env.cpu.physicalCores} physical)`
    : `${env.cpu.cores}`;
  const iperf3 = env.iperf3.path
    ? [['version', env.iperf3.version ?? 'unknown'], ['path', env.iperf3.path]]
    : [['version', 'not found']];
  const sections = [
    [`${tool.name}:`, [['version', tool.version], ...engineRows(result.options), ...casesRows(result.options)]],
    ['Operating System:', [
      ['cpu', env.cpu.model],
      ['cores', cores],
      ['memory', formatBytes(env.memory)],
      ['type', env.os.type],
      ['platform', env.os.platform],
      ['arch', env.os.arch],
      ['release', env.os.release],
      ['distro', env.os.distro],
      ['aes', aes],
    ]],
    ['Node.js Versions:', Object.entries(env.node)],
    ['iperf3:', iperf3],
    ...remoteSections(env.remote),
  ];
  // One label column for every section, as wide as the seed's 16 or the
  // longest name (process.versions has cjs_module_lexer) plus a space.
  const width = Math.max(16, ...sections.flatMap(([, rows]) => rows.map(([name]) => name.length + 1)));
  const text = sections
    .map(([title, rows]) => [paint.bold(title), ...rows.map(([name, value]) => `${name.padEnd(width)}${value}`)].join('\n'))
    .join('\n\n');
  // The run's own warnings (a case listed twice), before any case runs.
  const warnings = result.warnings.map((warning) => paint.yellow(`warning: ${warning}`));
  return warnings.length > 0 ? `${text}\n\n${warnings.join('\n')}` : text;
}

export function formatCaseBlock(given, { color = false } = {}) {
  const caseResult = upgradeCase(given);
  const paint = painter(color);
  const lines = [`------------ Test Case ${caseResult.index} ----------------`, caseLabel(caseResult), ...directionLines(caseResult)];
  if (caseResult.status === 'ok') {
    lines.push(
      'Interval         Transfer     Bitrate',
      measurementRow(caseResult.sender, 'sender', paint),
      measurementRow(caseResult.receiver, 'receiver', paint),
      ...spreadLines(caseResult, paint),
      ...udpLines(caseResult.udp),
      ...costLines(caseResult.cost),
      ...wireLines(caseResult.wire),
      ...latencyLines(caseResult.latency),
      ...ceilingLines(caseResult.ceiling),
    );
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
  const result = upgradeResult(given);
  const paint = painter(color);
  const { ranked, unranked } = rankCases(result);
  const lines = ['(ranking):', ''];
  if (!result.complete) {
    // run() records SIGINT or SIGTERM, or 'aborted' when an API caller stopped it.
    const cause = result.interrupted?.startsWith('SIG') ? `interrupted by ${result.interrupted}` : 'the run was cut short';
    lines.push(paint.yellow.bold(`INCOMPLETE: ${cause}; ${ranked.length} of ${result.cases.length} cases measured.`), '');
  }
  const rankWidth = Math.max(2, String(ranked.length).length);
  const reference = relativeReference(result);
  for (const [position, caseResult] of ranked.entries()) {
    const bitrates = [caseResult.sender, caseResult.receiver].map((side) => paint.bold(formatBitrate(side.bits_per_second)));
    const repeats = isRepeated(caseResult)
      ? [`median of ${okRuns(caseResult).length}, cv ${percent(caseResult.receiver.cv)}${caseResult.unstable ? ` ${paint.yellow.bold('UNSTABLE')}` : ''}`]
      : [];
    lines.push([
      `${String(position + 1).padStart(rankWidth)}: ${caseName(caseResult)}`,
      `Bitrate=[${bitrates.join(', ')}]`,
      ...repeats,
      ...relativeLines(caseResult, reference, paint),
      caseLabel(caseResult),
    ].join(', '));
  }
  const unstable = ranked.filter((caseResult) => caseResult.unstable).length;
  if (unstable > 0) {
    // As hyperfine warns about outliers: the number is printed, but a
    // reader should not trust its rank.
    lines.push('', paint.yellow(`UNSTABLE: the receiver bitrate of ${unstable} ${unstable === 1 ? 'case' : 'cases'} varied by more than ${percent(UNSTABLE_CV)} between runs (cv), so ${unstable === 1 ? 'its rank' : 'their ranks'} may be luck; run with a higher --repeat on a quieter machine.`));
  }
  if (unranked.length > 0) {
    lines.push('', '(not ranked):', '');
    for (const caseResult of unranked) {
      // Only the reason's first line: the full text is in the case block.
      const reason = caseResult.reason.split('\n')[0];
      lines.push(`${' '.repeat(rankWidth)}  ${caseName(caseResult)}, ${statusLabel(caseResult.status, paint)}: ${reason}, ${caseLabel(caseResult)}`);
    }
  }
  lines.push('', `Done in ${result.wallSeconds.toFixed(2)}s.`);
  return lines.join('\n');
}

export function formatTextReport(result, { color = false } = {}) {
  return [
    formatHeader(result, { color }),
    `running ${result.cases.length} tests...`,
    ...result.cases.map((caseResult) => formatCaseBlock(caseResult, { color })),
    formatRanking(result, { color }),
  ].join('\n\n') + '\n';
}

// '0.83 x shadowsocks-libev aes-256-gcm' as hyperfine says '1.23 x faster
// than': the median receiver bitrate against the --relative-to case's.
function relativeLines(caseResult, reference, paint) {
  const cell = relativeCell(caseResult);
  if (!cell) return [];
  return [cell === 'reference' ? paint.bold('reference') : `${paint.bold(cell)} ${reference.label}`];
}

// With --remote, the server's half ran on another machine: the header
// describes it too, as that host reported itself.
function remoteSections(remote) {
  if (!remote) return [];
  return [[`Server host (${remote.destination}, ${remote.address}):`, [
    ['cpu', remote.cpu.model],
    ['cores', String(remote.cpu.cores)],
    ['memory', remote.memory],
    ['distro', remote.os.distro],
    ['release', remote.os.release],
    ['aes', remote.cpu.aes === null ? 'unknown' : remote.cpu.aes ? 'yes' : 'no'],
    ['node', remote.node.node],
    ['openssl', remote.node.openssl],
    ['iperf3', remote.iperf3.version ?? 'not found'],
  ]]];
}

// Which engine moved the bytes; results from before the built-in engine
// (all iperf3) keep the seed's header.
function engineRows({ engine, link }) {
  if (!engine) return [];
  return [
    ['engine', engine === 'node' ? 'node (built in: cipherbench send and sink)' : engine],
    ...(link ? [['link', linkLabel(link)]] : []),
  ];
}

// Which cases file ran; results given cases in code, or from before this
// row, have none.
function casesRows({ casesFile }) {
  return casesFile ? [['cases', casesFileRow(casesFile)]] : [];
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
  const line = (role, side) => [
    role.padEnd(8),
    `median ${paint.bold(formatBitrate(side.bits_per_second))}`,
    `min ${formatBitrateIn(side.min, side.bits_per_second)}`,
    `max ${formatBitrateIn(side.max, side.bits_per_second)}`,
    `cv ${percent(side.cv)}`,
    count,
  ].join('  ');
  const failedRuns = runs
    .filter((run) => run.status !== 'ok')
    .map((run) => `run ${run.repeat + 1} of ${runs.length}: ${statusLabel(run.status, paint)}: ${run.reason.split('\n')[0]}`);
  return [
    line('sender', caseResult.sender),
    line('receiver', caseResult.receiver) + (caseResult.unstable ? `  ${paint.yellow.bold('UNSTABLE')}` : ''),
    ...failedRuns,
  ];
}

// With --udp: what iperf3 -u's receiver counted (medians over the runs).
function udpLines(udp) {
  if (!udp) return [];
  const lost = `${formatFixed(udp.lost_percent, 2)}% (${udp.lost_packets} of ${udp.packets})`;
  const bisected = udp.max_loss
    ? [`${'max rate'.padEnd(LABEL_WIDTH)}  ${udp.max_loss.rate_bps === null ? 'none' : formatBitrate(udp.max_loss.rate_bps)} offered with at most ${udp.max_loss.percent}% lost (--max-loss; the figures above are that run's)`]
    : [];
  return [...alignTable([
    ['udp', 'offered', 'datagram', 'lost', 'jitter', 'out of order'],
    ['', formatBitrate(udp.offered_bps), `${udp.length} B`, lost, `${formatFixed(udp.jitter_ms, 3)} ms`, String(udp.out_of_order)],
  ], { labelWidth: LABEL_WIDTH }), ...bisected];
}

function costLines(cost) {
  if (!cost) return [];
  const rows = [['cost', 'cpu s', 'cpu s/GB', 'peak RSS']];
  for (const relay of ['client', 'server']) {
    const { cpuSeconds, cpuSecondsPerGB, peakRssBytes } = cost[relay];
    rows.push([`relay ${relay}`, formatFixed(cpuSeconds, 2), formatFixed(cpuSecondsPerGB, 2), formatBytes(peakRssBytes)]);
  }
  return alignTable(rows, { labelWidth: LABEL_WIDTH });
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
  return [`${'wire'.padEnd(15)}  ${percent(1 + wire.overhead)} of the payload crossed the link (overhead ${percent(wire.overhead)})`];
}

function ceilingLines(ceiling) {
  if (!ceiling) return [];
  return [[
    'ceiling'.padEnd(15),
    `encrypt ${formatBitrate(ceiling.encrypt_bps)}`,
    `decrypt ${formatBitrate(ceiling.decrypt_bps)}`,
    `(${formatBytes(ceiling.size)} reads, one core)`,
    `efficiency ${percent(ceiling.efficiency)}`,
  ].join('  ')];
}

function okRuns(caseResult) {
  return caseResult.runs.filter((run) => run.status === 'ok');
}

// With --both a chain appears twice under one index; the direction tells
// the two apart.
function caseName(caseResult) {
  return `Test Case ${caseResult.index}${isReverse(caseResult) ? ' (reverse)' : ''}`;
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
