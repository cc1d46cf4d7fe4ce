// @ts-check
import { archiveReport } from './archive.js';
import { compareResults } from './comparison.js';
import { formatComparison } from './comparison-text.js';
import { writeExports } from './exporters.js';
import { formatJsonReport } from './json-report.js';
import { readReportOptions } from './report-options.js';
import { checkOutputPaths, keepResult } from './output-paths.js';
import { createProgress } from './progress.js';
import { readResultFile } from './result-file.js';
import { useColor } from './terminal.js';
import { formatCaseBlock, formatHeader, formatRanking } from './text-report.js';
import { noiseFloorText } from './view-model.js';

// Everything `cipherbench run` says and writes around a run, for the CLI
// and any program alike: the text report as the run goes (a block per case
// as its last repeat ends, the live progress line on stderr), then the
// ranking, the comparison with a baseline, the archive and the exports.
//   const reporter = await createReporter({ markdown: 'ranking.md' });
//   const result = await run({ onEvent: reporter.onEvent });
//   const { ok } = await reporter.finish(result);
// Options: those of REPORT_OPTIONS (options.js), with the CLI's defaults,
// plus stdout and stderr (process's). Bad options, an unreadable baseline
// and an output path that cannot be written reject here, with exitCode 2,
// before anything is measured.
export async function createReporter(options = {}) {
  const { stdout = process.stdout, stderr = process.stderr } = options;
  const settings = readReportOptions(options);
  checkOutputPaths(settings);
  const baseline = settings.baseline ? await readResultFile(settings.baseline) : null;
  // With --json on stdout, stdout carries only JSON; the person reads stderr.
  const jsonToStdout = settings.json === true || settings.json === '-';
  const out = jsonToStdout ? stderr : stdout;
  const color = useColor(out, settings);
  const live = liveReport({ out, stderr, settings, color });

  // Resolves with { archived: { textPath, jsonPath } or null, written,
  // regressed, ok }: ok when everything asked for was written, no case got
  // slower than the baseline and none failed.
  /** @param {import('../contracts.js').Result} result */
  async function finish(result) {
    live.stop();
    live.catchUp(result);
    out.write(`${formatRanking(result, { color })}\n`);
    const { regressed, baselineRefused } = againstBaseline(baseline, result, { settings, out, stderr, color });
    if (jsonToStdout) stdout.write(formatJsonReport(result));
    const { archived, archiveFailed, written } = await writeOutputs(result, { settings, jsonToStdout, stdout, stderr });
    const failed = result.cases.some((caseResult) => caseResult.status === 'failed');
    return { archived, written, regressed, ok: !archiveFailed && written && !regressed && !failed && !baselineRefused };
  }

  return { onEvent: live.onEvent, stop: live.stop, finish };
}

// The text report as the run goes: the header when it starts, a case's
// block when its last repeat finishes, the progress line on stderr between.
// Runs are interleaved, so with --repeat the blocks come together in the
// last round, each as soon as its case is complete; one run each reads as
// before, block after block.
function liveReport({ out, stderr, settings, color }) {
  const live = {
    out,
    stderr,
    settings,
    color,
    printed: new Set(),
    headerPrinted: false,
    progress: null,
    workload: null,
  };
  return {
    /** @param {import('../contracts.js').RunEvent} event */
    onEvent: (event) => EVENT_PRINTERS[event.type]?.(live, event),
    // Clears the live line; a run that throws must still leave the terminal clean.
    stop: () => live.progress?.stop(),
    // An interrupted run leaves cases that measured something before their
    // last repeat: their blocks too, before the ranking that includes them.
    catchUp(result) {
      if (!live.headerPrinted) writeParagraph(live, formatHeader(result, { color }));
      live.workload = result.workload;
      for (const caseResult of result.cases) {
        if (caseResult.status !== 'skipped' && !live.printed.has(caseKey(caseResult))) printBlock(live, caseResult);
      }
    },
  };
}

const writeParagraph = ({ out }, text) => out.write(`${text}\n\n`);
const caseKey = (caseResult) => `${caseResult.index} ${caseResult.direction}`;

function printBlock(live, caseResult) {
  live.printed.add(caseKey(caseResult));
  writeParagraph(live, formatCaseBlock(caseResult, { color: live.color, workload: live.workload ?? undefined }));
}

const EVENT_PRINTERS = Object.freeze({
  'run-started'(live, event) {
    live.headerPrinted = true;
    live.workload = event.result.workload;
    writeParagraph(live, formatHeader(event.result, { color: live.color }));
    writeParagraph(live, runningLine(event));
    live.progress = createProgress({
      stream: live.stderr,
      total: event.total,
      color: useColor(live.stderr, live.settings),
      duration: event.result.options.duration,
    });
  },
  'ceiling-started': ({ progress }, event) => progress.ceilingStarted(event.presets, event.position, event.total),
  'case-started': ({ progress }, event) =>
    progress.caseStarted(event.case, event.position, {
      round: event.round,
      rounds: event.rounds,
      runs: event.total,
    }),
  'case-remeasured': ({ progress }, event) => progress.caseRemeasured(event),
  'noise-floor-started': ({ progress }, event) => progress.noiseFloorStarted(event.runs),
  'noise-floor-finished'(live, event) {
    live.progress.stop();
    if (event.noiseFloor) writeParagraph(live, noiseFloorText(event.noiseFloor));
  },
  'round-finished': ({ progress }, event) => progress.roundFinished(event.widest),
  'case-finished'(live, event) {
    live.progress.caseFinished(event.run);
    if (!event.last) return;
    // The live line shares the terminal with stdout: clear it before the
    // block lands; the next run draws it again.
    live.progress.stop();
    printBlock(live, event.case);
  },
});

// The archive and the exports: { archived, archiveFailed, written }.
// Nothing measured is lost: when the archive fails the JSON report goes to
// stdout instead, and when a file still fails (a full disk, a folder
// removed since the paths were checked) it is kept in a temporary file.
async function writeOutputs(result, { settings, jsonToStdout, stdout, stderr }) {
  let archived = null;
  let archiveFailed = false;
  if (settings.archive) {
    try {
      archived = await archiveReport(result, { dir: settings.out });
      stderr.write(`report archived: ${archived.textPath} and ${archived.jsonPath}${incompleteNote(result)}\n`);
    } catch (error) {
      archiveFailed = true;
      const where = jsonToStdout
        ? 'the JSON report above on stdout is the only copy'
        : 'the JSON report follows on stdout';
      stderr.write(`cipherbench: ${error.message}; ${where}\n`);
      if (!jsonToStdout) stdout.write(formatJsonReport(result));
    }
  }
  const files = { ...settings, json: jsonToStdout ? null : settings.json };
  const written = await writeExports(result, files, { stdout, stderr });
  if (!archived && (archiveFailed || !written)) {
    const kept = keepResult(formatJsonReport(result), result.startedAt);
    stderr.write(
      kept
        ? `cipherbench: the JSON report is kept in ${kept}\n`
        : 'cipherbench: the JSON report could not be kept in a temporary file either\n',
    );
  }
  return { archived, archiveFailed, written };
}

// With --baseline, the comparison after the ranking: { regressed,
// baselineRefused }. A baseline of another workload is refused in one
// line: what was measured is still reported and archived, and the run
// does not pass.
function againstBaseline(baseline, result, { settings, out, stderr, color }) {
  if (!baseline) return { regressed: false, baselineRefused: false };
  try {
    const comparison = compareResults(baseline, result, { threshold: settings.threshold, strict: settings.strict });
    out.write(`\nAgainst the baseline ${settings.baseline}:\n${formatComparison(comparison, { color })}`);
    return { regressed: comparison.regressed, baselineRefused: false };
  } catch (error) {
    if (error.exitCode === undefined) throw error;
    stderr.write(`cipherbench: --baseline ${settings.baseline}: ${error.message}\n`);
    return { regressed: false, baselineRefused: true };
  }
}

// As many cases as the report will show (runs of the same case are one
// case), and, when the progress line's count of runs differs, why: rounds,
// and cases that cannot run here (not installed), which have no runs.
function runningLine({ cases, total, result }) {
  const { repeat = 1 } = result.options;
  const runnable = total / repeat;
  const unavailable = Number.isInteger(runnable) && runnable < cases ? ` (${cases - runnable} not available here)` : '';
  const each = repeat > 1 ? `, ${repeat} runs each` : '';
  const runs = total !== cases ? `: ${total} runs` : '';
  return `running ${cases} ${cases === 1 ? 'case' : 'cases'}${unavailable}${each}${runs}...`;
}

// An interrupted run's archive says how much of the run it holds, where a
// person who pressed Ctrl-C looks: beside its path.
function incompleteNote(result) {
  if (result.complete) return '';
  // Counted as the ranking's INCOMPLETE line counts them.
  const measured = result.cases.filter((caseResult) => caseResult.status === 'ok').length;
  return ` (incomplete: ${measured} of ${result.cases.length} cases measured)`;
}

// The same for a result already in hand (one run() returned, or one read
// back with readResultFile): the text report, then what options ask for.
export async function report(result, options = {}) {
  return (await createReporter(options)).finish(result);
}
