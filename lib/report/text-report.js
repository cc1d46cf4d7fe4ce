import { Chalk } from 'chalk';
import { UNSTABLE_CV, upgradeCase, upgradeResult } from '../result.js';
import { roundsForLevel } from '../statistics/summaries.js';
import { caseLabel } from './case-label.js';
import { ceilingDirectionText, unsteadyCeilingText } from './ceiling-text.js';
import { casesFileRow } from './cases-source.js';
import {
  againstCeilingNote,
  cannotTellFromReference,
  convergenceNote,
  disturbedHeadline,
  intervalText,
  isCostRanked,
  isRepeated,
  levelsText,
  overlapsAny,
  pairCostText,
  rankCases,
  rankNote,
  rankRequests,
  relativeCell,
  relativeReference,
  smokeNote,
  warmupNote,
  withinNoiseAbove,
} from './ranking.js';
import { machineLoadText } from './machine-load.js';
import { isOverBound, overBoundText, searchedRateText } from './udp-bound.js';
import { requestColumns, requestsNote } from './requests-table.js';
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
  const cores =
    env.cpu.physicalCores && env.cpu.physicalCores !== env.cpu.cores
      ? `${env.cpu.cores} (${env.cpu.physicalCores} physical)`
      : `${env.cpu.cores}`;
  const iperf3 = env.iperf3.path
    ? [
        ['version', env.iperf3.version ?? 'unknown'],
        ['path', env.iperf3.path],
      ]
    : [['version', 'not found']];
  const sections = [
    [`${tool.name}:`, [['version', tool.version], ...engineRows(result), ...casesRows(result.options)]],
    [
      'Operating System:',
      [
        ['cpu', env.cpu.model],
        ['cores', cores],
        ['memory', formatBytes(env.memory)],
        ['type', env.os.type],
        ['platform', env.os.platform],
        ['arch', env.os.arch],
        ['release', env.os.release],
        ['distro', env.os.distro],
        ['aes', aes],
      ],
    ],
    ['Node.js Versions:', Object.entries(env.node)],
    ['iperf3:', iperf3],
    ...(env.wrk
      ? [
          [
            'wrk:',
            [
              ['version', env.wrk.version ?? 'unknown'],
              ['path', env.wrk.path],
            ],
          ],
        ]
      : []),
    // The reference rows' programs, each as it said its version.
    ...(env.peers ? [['Peers:', Object.entries(env.peers)]] : []),
    ...remoteSections(env.remote),
  ];
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

export function formatCaseBlock(given, { color = false } = {}) {
  const caseResult = upgradeCase(given);
  const paint = painter(color);
  const lines = [
    `------------ Test Case ${caseResult.index} ----------------`,
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
  if (caseResult.status === 'ok' && caseResult.requests) {
    lines.push(...requestLines(caseResult.requests));
  } else if (caseResult.status === 'ok') {
    lines.push(
      'Interval         Transfer     Bitrate',
      measurementRow(caseResult.sender, 'sender', paint),
      measurementRow(caseResult.receiver, 'receiver', paint),
      ...spreadLines(caseResult, paint),
      ...udpLines(caseResult, paint),
      ...costLines(caseResult.cost),
      ...wireLines(caseResult.wire),
      ...transportLines(caseResult.transport),
      ...latencyLines(caseResult.latency),
      ...ceilingLines(caseResult.ceiling, paint),
      ...profileLines(caseResult.runs),
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
  const { ranked, unranked, overBound } = rankCases(result);
  const lines = ['(ranking):', ''];
  if (!result.complete) {
    // run() records SIGINT or SIGTERM, or 'aborted' when an API caller stopped it.
    const cause = result.interrupted?.startsWith('SIG')
      ? `interrupted by ${result.interrupted}`
      : 'the run was cut short';
    lines.push(
      paint.yellow.bold(`INCOMPLETE: ${cause}; ${ranked.length} of ${result.cases.length} cases measured.`),
      '',
    );
  }
  const headline = disturbedHeadline([...ranked, ...rankRequests(result)]);
  if (headline) lines.push(paint.yellow.bold(headline), '');
  const rankWidth = Math.max(2, String(ranked.length).length);
  const reference = relativeReference(result);
  for (const [position, caseResult] of ranked.entries()) {
    const bitrates = [caseResult.sender, caseResult.receiver].map((side) =>
      paint.bold(formatBitrate(side.bits_per_second)),
    );
    const interval = intervalText(caseResult.receiver);
    const repeats = isRepeated(caseResult)
      ? [
          `median of ${okRuns(caseResult).length}, cv ${percent(caseResult.receiver.cv)}${caseResult.unstable ? ` ${paint.yellow.bold('UNSTABLE')}` : ''}`,
        ]
      : [];
    const byCost = isCostRanked(result);
    const notes = [
      convergenceNote(caseResult),
      rankNote(ranked, position, { byCost, noiseFloor: result.noiseFloor }),
    ].filter(Boolean);
    lines.push(
      [
        `${String(position + 1).padStart(rankWidth)}: ${caseName(caseResult)}`,
        ...(byCost && caseResult.cost ? [`CPU s/GB=${paint.bold(pairCostText(caseResult.cost))}`] : []),
        `Bitrate=[${bitrates.join(', ')}${interval ? ` ${interval}` : ''}]`,
        ...repeats,
        ...notes.map((note) => paint.yellow(note)),
        ...relativeLines(caseResult, reference, paint, byCost),
        caseLabel(caseResult),
      ].join(', '),
    );
  }
  // A request run ranks in its table, under the heading; the notes on how
  // the machine was and what the marks mean follow it.
  const requests = rankRequests(result);
  if (requests.length > 0) {
    const columns = requestColumns(requests);
    const rows = [
      columns.map((column) => column.title),
      ...requests.map((caseResult, position) => columns.map((column) => column.cell(caseResult, position + 1))),
    ];
    lines.push(...alignColumns(rows, columns), '', requestsNote(requests, { noiseFloor: result.noiseFloor }));
  }
  lines.push(...rankingNotes(result, ranked, reference, paint));
  const unstable = ranked.filter((caseResult) => caseResult.unstable).length;
  if (unstable > 0) {
    // As hyperfine warns about outliers: the number is printed, but a
    // reader should not trust its rank.
    lines.push(
      '',
      paint.yellow(
        `UNSTABLE: the receiver bitrate of ${unstable} ${unstable === 1 ? 'case' : 'cases'} varied by more than ${percent(UNSTABLE_CV)} between runs (cv), so ${unstable === 1 ? 'its rank' : 'their ranks'} may be luck; run with a higher --repeat on a quieter machine.`,
      ),
    );
  }
  if (unranked.length + overBound.length > 0) {
    lines.push('', '(not ranked):', '');
    for (const caseResult of overBound)
      lines.push(
        `${' '.repeat(rankWidth)}  ${caseName(caseResult)}, ${paint.yellow(overBoundText(caseResult))}, ${caseLabel(caseResult)}`,
      );
    for (const caseResult of unranked) {
      // Only the reason's first line: the full text is in the case block.
      const reason = caseResult.reason.split('\n')[0];
      lines.push(
        `${' '.repeat(rankWidth)}  ${caseName(caseResult)}, ${statusLabel(caseResult.status, paint)}: ${reason}, ${caseLabel(caseResult)}`,
      );
    }
  }
  lines.push('', lastLine(result));
  return lines.join('\n');
}

// How the run ended: a run stopped by a signal (or cut short by an API
// caller, or one archived before it could record either) is not done.
function lastLine({ complete, interrupted, wallSeconds }) {
  const seconds = `${wallSeconds.toFixed(2)}s`;
  if (complete !== false) return `Done in ${seconds}.`;
  return interrupted?.startsWith('SIG')
    ? `Interrupted by ${interrupted} after ${seconds}.`
    : `Cut short after ${seconds}.`;
}

// One case's request figures, under its block's title.
function requestLines(requests) {
  const { latency, errors } = requests;
  const failed = Object.entries(errors)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`);
  return [
    `Requests         ${requests.ok} ok in ${requests.seconds.toFixed(2)} s, ${formatFixed(requests.requestsPerSecond, 0)} req/s, ${requests.kind}, ${requests.concurrency} clients${requests.newConnections ? ', new connection each' : ''}`,
    `errors           ${failed.length === 0 ? 'none' : failed.join(', ')}`,
    `latency (ms)     p50 ${formatFixed(latency.p50, 3)}  p90 ${formatFixed(latency.p90, 3)}  p99 ${formatFixed(latency.p99, 3)}  p99.9 ${formatFixed(latency.p999, 3)}  max ${formatFixed(latency.max, 3)}  stdev ${formatFixed(latency.stdev, 3)}`,
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
      `running ${result.cases.length} tests...`,
      ...result.cases.map((caseResult) => formatCaseBlock(caseResult, { color })),
      formatRanking(result, { color }),
    ].join('\n\n') + '\n'
  );
}

// '0.83 x shadowsocks-libev aes-256-gcm' as hyperfine says '1.23 x faster
// than': the median receiver bitrate against the --relative-to case's.
// At a fixed rate the ratio is of CPU seconds per GB: '3.23 x the CPU per GB of'.
function relativeLines(caseResult, reference, paint, byCost) {
  const cell = relativeCell(caseResult);
  if (!cell) return [];
  if (cell === 'reference') return [paint.bold('reference')];
  const apart = cannotTellFromReference(caseResult) ? ` (cannot be told apart from ${reference.label})` : '';
  return [`${paint.bold(cell)} ${byCost ? 'the CPU per GB of ' : ''}${reference.label}${apart}`];
}

// Under the ranking: what the brackets are, which ranks the intervals do
// not separate, which cases the stopping rule gave up on, and the run's
// rounds and seed, so the order can be replayed.
function rankingNotes(result, ranked, reference, paint) {
  const notes = [];
  const smoke = smokeNote(result);
  if (smoke) notes.push(paint.yellow(smoke));
  const withInterval = ranked.filter((caseResult) => intervalText(caseResult.receiver));
  const warmup = warmupNote(result);
  if (warmup) notes.push(warmup.warn ? paint.yellow(warmup.text) : warmup.text);
  if (isCostRanked(result)) {
    notes.push(
      `Ranked by the relay pair's CPU seconds per GB at ${formatBitrate(result.options.rate)} offered, lowest first; runs that fell short of 97% of it (saturated) are left out of the cost.`,
    );
  }
  if (withInterval.length > 0) {
    const { level } = withInterval[0].receiver;
    notes.push(
      `[low-high]: the ${levelsText(withInterval.map((caseResult) => caseResult.receiver))} interval of the median receiver bitrate (docs/statistics.md); 'at N%' marks one that too few rounds give only at N% (${plainPercent(level)}, the level asked, needs ${roundsForLevel(level)}).`,
    );
  }
  const overlapping = ranked.filter((_, position) => overlapsAny(ranked, position, isCostRanked(result))).length;
  if (overlapping > 0)
    notes.push(
      paint.yellow(
        `overlaps #N-#M: ${overlapping} ${overlapping === 1 ? "case's interval overlaps" : "cases' intervals overlap"} those of ranks N to M, above or below, so their order against those may be the noise's; a rank not named is apart.`,
      ),
    );
  if (reference) {
    // Which case the ratios are to, by the number the ranking prints, so a
    // reader who typed a number or some text sees what it picked.
    const named = result.options.relativeTo
      ? `, the case --relative-to ${JSON.stringify(result.options.relativeTo)} named`
      : '';
    notes.push(`N x: against Test Case ${reference.index} (${reference.label})${named}.`);
    const apart = ranked.filter(cannotTellFromReference).length;
    if (apart > 0)
      notes.push(
        `${apart} ${apart === 1 ? 'case' : 'cases'} cannot be told apart from ${reference.label}: the interval of the paired ratio holds 1.00.`,
      );
  }
  const unconverged = ranked.filter((caseResult) => caseResult.converged === false).length;
  if (unconverged > 0) {
    const { confidence } = result.options;
    const asked = confidence ? ` to ${plainPercent(confidence.level)} within ${plainPercent(confidence.width)}` : '';
    notes.push(
      paint.yellow.bold(
        `NOT CONVERGED: ${unconverged} of ${ranked.length} cases did not narrow${asked} in ${result.rounds} rounds (${result.stopped ?? 'stopped'}).`,
      ),
    );
  }
  if (result.noiseFloor && ranked.length > 0) {
    notes.push(noiseFloorText(result.noiseFloor));
    const close = ranked.filter((_, position) => withinNoiseAbove(ranked, position, result.noiseFloor)).length;
    if (close > 0)
      notes.push(
        paint.yellow(
          `within noise of #N: ${close} ${close === 1 ? 'case is' : 'cases are'} closer to the case ranked just above than that spread: run with --repeat 3 or more for intervals.`,
        ),
      );
  }
  notes.push(...ceilingNotes(result, ranked, paint));
  const machine = machineLoadText(result);
  if (machine) notes.push(machine);
  if (result.options.seed !== null && result.options.seed !== undefined && result.rounds > 1) {
    notes.push(
      `${result.rounds} rounds in a random order, seed ${result.options.seed} (--seed ${result.options.seed} replays it).`,
    );
  }
  return notes.length > 0 ? ['', ...notes] : [];
}

// Under the ranking: the ranks their own ceilings contradict (the
// disturbed cases are counted in the machine's sentence, machine-load.js).
function ceilingNotes(result, ranked, paint) {
  const notes = [];
  const against = ranked.filter((_, position) => againstCeilingNote(ranked, position, result.noiseFloor)).length;
  if (against > 0)
    notes.push(
      paint.yellow(
        `cipher faster than #N: ${against} ${against === 1 ? 'case ranks' : 'cases rank'} below a case of the same chain whose cipher alone is the slower, by more than the noise: one of the two figures is not what the code does.`,
      ),
    );
  return notes;
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
  const builtIn =
    workload === 'requests' ? 'node (built in: its own HTTP client)' : 'node (built in: cipherbench send and sink)';
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
        `run ${run.repeat + 1} of ${runs.length}: ${statusLabel(run.status, paint)}: ${run.reason.split('\n')[0]}`,
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
          formatBitrate(udp.offered_bps),
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
function transportLines(transport) {
  return transport ? [`${'transport'.padEnd(LABEL_WIDTH)}  ${transport}`] : [];
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
  return `Test Case ${caseResult.index}${isReverse(caseResult) ? ' (reverse)' : ''}`;
}

function isReverse(caseResult) {
  return caseResult.direction === 'reverse';
}

// 'noise floor: direct varied by cv 4.2% over 3 runs of 1 s (median
// 10.1 Gbits/sec)': the machine's own spread, against which a difference
// between two ranks is to be read.
export function noiseFloorText(noiseFloor) {
  return `noise floor: direct (no relay) varied by cv ${percent(noiseFloor.cv)} over ${noiseFloor.runs} runs of ${noiseFloor.seconds} s (median ${formatBitrate(noiseFloor.bits_per_second)}); ranks closer than that may be the machine's.`;
}

// A level or width as a person typed it: '95%', '99.9%', '2.5%'.
function plainPercent(fraction) {
  return `${Number((fraction * 100).toPrecision(6))}%`;
}

function percent(fraction) {
  return `${formatFixed(fraction * 100, 1)}%`;
}

function statusLabel(status, paint) {
  return status === 'failed' ? paint.red('FAILED') : paint.yellow('SKIPPED');
}
