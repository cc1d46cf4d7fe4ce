import { Chalk } from 'chalk';
import { formatBitrate, formatBytes, formatInterval } from './units.js';

// The text report keeps the shape of the blinksocks benchmark report, so its
// readers find the same sections, rows and ranking line where they expect
// them. Everything here only reads the result object of docs/result.md.

const DASHES = '-----------------------------------------';

// Colour is decided by the caller (a terminal or not), never guessed from
// stdout here, because the same text is also archived without colour.
function painter(color) {
  return new Chalk({ level: color ? 1 : 0 });
}

export function formatHeader(result, { color = false } = {}) {
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
    [`${tool.name}:`, [['version', tool.version]]],
    ['Operating System:', [
      ['cpu', env.cpu.model],
      ['cores', cores],
      ['memory', env.memory],
      ['type', env.os.type],
      ['platform', env.os.platform],
      ['arch', env.os.arch],
      ['release', env.os.release],
      ['distro', env.os.distro],
      ['aes', aes],
    ]],
    ['Node.js Versions:', Object.entries(env.node)],
    ['iperf3:', iperf3],
  ];
  // One label column for every section, as wide as the seed's 16 or the
  // longest name (process.versions has cjs_module_lexer) plus a space.
  const width = Math.max(16, ...sections.flatMap(([, rows]) => rows.map(([name]) => name.length + 1)));
  return sections
    .map(([title, rows]) => [paint.bold(title), ...rows.map(([name, value]) => `${name.padEnd(width)}${value}`)].join('\n'))
    .join('\n\n');
}

export function formatCaseBlock(caseResult, { color = false } = {}) {
  const paint = painter(color);
  const lines = [`------------ Test Case ${caseResult.index} ----------------`, chainJson(caseResult)];
  if (caseResult.status === 'ok') {
    lines.push(
      'Interval         Transfer     Bitrate',
      measurementRow(caseResult.sender, 'sender', paint),
      measurementRow(caseResult.receiver, 'receiver', paint),
    );
  } else {
    // The reason may carry the relay's stderr tail; indenting it keeps the
    // block readable while leaving every line of it in the report.
    const [first, ...rest] = caseResult.reason.split('\n');
    lines.push(`${statusLabel(caseResult.status, paint)}: ${first}`, ...rest.map((line) => `  ${line}`));
  }
  lines.push(DASHES);
  return lines.join('\n');
}

export function formatRanking(result, { color = false } = {}) {
  const paint = painter(color);
  const ranked = result.cases
    .filter((caseResult) => caseResult.status === 'ok')
    .sort((a, b) => b.receiver.bits_per_second - a.receiver.bits_per_second);
  const unranked = result.cases.filter((caseResult) => caseResult.status !== 'ok');
  const lines = ['(ranking):', ''];
  if (!result.complete) {
    // run() records SIGINT or SIGTERM, or 'aborted' when an API caller stopped it.
    const cause = result.interrupted?.startsWith('SIG') ? `interrupted by ${result.interrupted}` : 'the run was cut short';
    lines.push(paint.yellow.bold(`INCOMPLETE: ${cause}; ${ranked.length} of ${result.cases.length} cases measured.`), '');
  }
  const rankWidth = Math.max(2, String(ranked.length).length);
  for (const [position, caseResult] of ranked.entries()) {
    const bitrates = [caseResult.sender, caseResult.receiver].map((side) => paint.bold(formatBitrate(side.bits_per_second)));
    lines.push(`${String(position + 1).padStart(rankWidth)}: Test Case ${caseResult.index}, Bitrate=[${bitrates.join(', ')}], ${chainJson(caseResult)}`);
  }
  if (unranked.length > 0) {
    lines.push('', '(not ranked):', '');
    for (const caseResult of unranked) {
      // Only the reason's first line: the full text is in the case block.
      const reason = caseResult.reason.split('\n')[0];
      lines.push(`${' '.repeat(rankWidth)}  Test Case ${caseResult.index}, ${statusLabel(caseResult.status, paint)}: ${reason}, ${chainJson(caseResult)}`);
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

function measurementRow(side, role, paint) {
  return `${formatInterval(0, side.seconds)}  ${formatBytes(side.bytes)}  ${paint.bold(formatBitrate(side.bits_per_second))}  ${role}`;
}

function statusLabel(status, paint) {
  return status === 'failed' ? paint.red('FAILED') : paint.yellow('SKIPPED');
}

function chainJson(caseResult) {
  return JSON.stringify(caseResult.presets);
}
