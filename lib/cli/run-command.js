import { existsSync } from 'node:fs';
import { DEFAULT_THRESHOLD } from '../report/comparison.js';
import { DEFAULT_PARALLEL, DEFAULT_PORTS, ENGINES, MODES } from '../runner/options.js';
import { parseThreshold } from './compare-command.js';
import { readResultFile } from '../report/result-file.js';
import { earlySignal } from './early-signals.js';
import { nearestName } from './nearest-name.js';
import { inputError } from '../errors.js';
import { PROFILES } from '../runner/link/profiles.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_INTERRUPTED = 130;

const { smoke, default: standard, full } = MODES;

export function registerRunCommand(program) {
  program
    .command('run [file]', { isDefault: true })
    .description('measure every case in FILE (default: ./cases.js here, else the bundled set): a preset chain through our relay pair, or a reference row (direct, plain, another implementation), with iperf3 or the built-in engine; then rank and archive them')
    // No defaults for what a mode sets, so an explicit flag can be told
    // apart from the mode's value.
    .option('--smoke', `a quick check that everything works: the first ${smoke.cases} cases, ${smoke.duration} s, once`)
    .option('--full', `figures to publish or gate on: ${full.duration} s, ${full.repeat} repeats, latency`)
    .option('--duration <seconds>', `seconds iperf3 sends per run (iperf3 -t) (default: ${standard.duration}, ${smoke.duration} with --smoke, ${full.duration} with --full)`)
    .option('--repeat <runs>', `runs of each case, interleaved A B C A B C; the report gives the median and spread (default: ${standard.repeat}, ${full.repeat} with --full)`)
    .option('--parallel <streams>', 'parallel iperf3 streams (iperf3 -P)', String(DEFAULT_PARALLEL))
    .option('--reverse', 'measure the other direction (iperf3 -R: iperf3 -s sends, through the server-to-client half of each preset)')
    .option('--both', 'measure each case forward, then reverse')
    .option('--latency', 'also time 1 KB round trips and new connections through the relays (on with --full)')
    .option('--no-latency', 'no latency, even with --full')
    .option('--no-ceiling', 'do not measure each chain\'s cipher ceiling (in-process encrypt and decrypt) before the runs')
    .option('--filter <text>', 'run only case number TEXT, or the cases whose JSON or label contains TEXT')
    .option('--relative-to <text>', 'also give every case\'s receiver bitrate as a multiple of one case\'s: case number TEXT, or the one case whose JSON or label contains TEXT')
    .option('--engine <name>', `what sends and receives the traffic: ${ENGINES.join(', ')} (iperf3 when installed, else the built-in Node sender and sink)`, 'auto')
    .option('--link <profile>', `run the relay server's half across a shaped link in network namespaces (root): ${Object.keys(PROFILES).join(', ')}, or e.g. rate=100mbit,delay=40ms,loss=0.1% (docs/links.md)`)
    .option('--remote <destination>', 'run the server\'s half (iperf3 -s, the relay server) on another host over ssh (user@host, with your ssh config and keys); it needs Node.js and this cipherbench version there (docs/links.md)')
    .option('--remote-cipherbench <command>', 'with --remote: how to run cipherbench on that host', 'cipherbench')
    .option('--ssh-config <file>', 'with --remote: an ssh configuration file (ssh -F)')
    .option('--ports <client,server,target>', 'ports of the relay client, relay server and iperf3 -s', Object.values(DEFAULT_PORTS).join(','))
    .option('--baseline <file>', 'compare with an earlier result (reports/*.json) after the ranking; exit 1 when a case got slower')
    .option('--threshold <percent>', 'with --baseline: smallest drop of a median, in percent, that counts as slower', String(DEFAULT_THRESHOLD))
    .option('--strict', 'with --baseline: also gate cases with fewer than 3 runs a side, on the threshold and disjoint min..max ranges alone')
    .option('--markdown <file>', 'also write the ranking as Markdown to FILE')
    .option('--html <file>', 'also write the report as one self-contained HTML file to FILE')
    .option('--out <dir>', 'folder the report is archived in', './reports')
    .option('--no-archive', 'do not write the report to --out')
    .option('--json [file]', 'also write the JSON report to FILE; with no FILE or \'-\', print it on stdout and the text on stderr')
    .option('--no-color', 'never colour the text (as NO_COLOR does); colour is only used on a terminal')
    .action(async (file, options, command) => {
      checkCommandName(file, command.parent.commands.map((other) => other.name()));
      process.exitCode = await runCommand(file, options);
    });
}

// `cipherbench cipher` reaches run as its FILE, since run is the default
// command: a bare word that is no file here was most likely a command.
function checkCommandName(file, commands) {
  if (!file || !/^[a-z][a-z-]*$/.test(file) || existsSync(file)) return;
  const nearest = nearestName(file, commands);
  const hint = nearest ? `did you mean 'cipherbench ${nearest}'?` : `the commands are ${commands.join(', ')}`;
  throw inputError(`'${file}' is neither a command nor a cases file here: ${hint}`);
}

// NO_COLOR (https://no-color.org): present and not empty turns colour off.
const colorFor = (stream, options) =>
  options.color !== false && !process.env.NO_COLOR && Boolean(stream.isTTY);

function modeOf(options) {
  if (options.smoke && options.full) throw inputError('give --smoke or --full, not both');
  return options.smoke ? 'smoke' : options.full ? 'full' : 'default';
}

// `--json cases.js` would take the cases file for the output and overwrite
// it: commander cannot know that FILE was meant as the cases file. A .js
// name, or any existing file but a .json one, is refused.
function checkJsonFile(json) {
  if (typeof json !== 'string' || json === '-') return;
  if (/\.(c|m)?js$/.test(json) || (existsSync(json) && !json.endsWith('.json'))) {
    throw inputError(`--json ${json}: that looks like a cases file, not where to write the JSON report; give a .json name, '-' for stdout, or put the cases file before --json`);
  }
}

async function runCommand(file, options) {
  // Installed first: a Ctrl-C during start-up (the imports below take a
  // fifth of a second) must also end in a whole, incomplete report, not in
  // Node's default death by signal. The first Ctrl-C (or SIGTERM) stops the
  // run in progress and keeps what was measured; a second one means "now",
  // and execa's cleanup still stops every child as this process exits.
  const controller = new AbortController();
  const onSignal = (name) => () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    controller.abort(name);
  };
  const handlers = { SIGINT: onSignal('SIGINT'), SIGTERM: onSignal('SIGTERM') };
  for (const [name, handler] of Object.entries(handlers)) process.on(name, handler);
  // A signal held while the CLI loaded: the run starts already stopped, so
  // it still ends in a whole report, marked incomplete.
  if (earlySignal()) controller.abort(earlySignal());

  const mode = modeOf(options);
  checkJsonFile(options.json);
  // A baseline that cannot be read is found out now, not after the run.
  const threshold = parseThreshold(options.threshold);
  const baseline = options.baseline ? await readResultFile(options.baseline) : null;

  // Loaded here, not at the top: execa and systeminformation cost a fifth
  // of a second, and every relay process starts through this same CLI.
  const [{ run }, textReport, { formatJsonReport }, { archiveReport }, { createProgress }] = await Promise.all([
    import('../runner/run.js'),
    import('../report/text-report.js'),
    import('../report/json-report.js'),
    import('../report/archive.js'),
    import('../report/progress.js'),
  ]);
  // With --json on stdout, stdout carries only JSON; the person reads stderr.
  const jsonToStdout = options.json === true || options.json === '-';
  const out = jsonToStdout ? process.stderr : process.stdout;
  const color = colorFor(out, options);
  const write = (text) => out.write(`${text}\n\n`);

  // A case's block is printed when its last repeat finishes. Runs are
  // interleaved, so with --repeat the blocks come together in the last
  // round, each as soon as its case is complete; one run each reads as
  // before, block after block.
  const printed = new Set();
  const caseKey = (caseResult) => `${caseResult.index} ${caseResult.direction}`;
  const printBlock = (caseResult) => {
    printed.add(caseKey(caseResult));
    write(textReport.formatCaseBlock(caseResult, { color }));
  };
  let progress = null;
  const onEvent = (event) => {
    if (event.type === 'run-started') {
      write(textReport.formatHeader(event.result, { color }));
      // As many as the report will show: runs of the same case are one test.
      write(`running ${event.cases} tests...`);
      progress = createProgress({
        stream: process.stderr,
        total: event.total,
        color: colorFor(process.stderr, options),
        duration: event.result.options.duration,
      });
    } else if (event.type === 'ceiling-started') {
      progress.ceilingStarted(event.presets, event.position, event.total);
    } else if (event.type === 'case-started') {
      progress.caseStarted(event.case, event.position, { repeat: event.repeat, repeats: event.repeats });
    } else if (event.type === 'case-finished') {
      progress.caseFinished(event.run);
      if (!event.last) return;
      // The live line shares the terminal with stdout: clear it before the
      // block lands; the next run draws it again.
      progress.stop();
      printBlock(event.case);
    }
  };

  let result;
  try {
    result = await run({
      casesFile: file,
      mode,
      duration: options.duration,
      repeat: options.repeat,
      parallel: options.parallel,
      reverse: options.reverse ?? false,
      both: options.both ?? false,
      latency: options.latency,
      ceiling: options.ceiling,
      filter: options.filter ?? null,
      relativeTo: options.relativeTo ?? null,
      engine: options.engine,
      ports: options.ports,
      link: options.link ?? null,
      remote: options.remote ?? null,
      remoteCipherbench: options.remoteCipherbench,
      sshConfig: options.sshConfig ?? null,
      signal: controller.signal,
      onEvent,
    });
  } finally {
    progress?.stop();
    for (const [name, handler] of Object.entries(handlers)) process.off(name, handler);
  }

  // An interrupted run leaves cases that measured something before their
  // last repeat: their blocks too, before the ranking that includes them.
  for (const caseResult of result.cases) {
    if (caseResult.status !== 'skipped' && !printed.has(caseKey(caseResult))) printBlock(caseResult);
  }
  out.write(`${textReport.formatRanking(result, { color })}\n`);

  let regressed = false;
  if (baseline) {
    const { compareResults, formatComparison } = await import('../report/comparison.js');
    const comparison = compareResults(baseline, result, { threshold, strict: options.strict ?? false });
    out.write(`\nAgainst the baseline ${options.baseline}:\n${formatComparison(comparison, { color })}`);
    regressed = comparison.regressed;
  }
  if (jsonToStdout) process.stdout.write(formatJsonReport(result));

  let archived = true;
  if (options.archive) {
    try {
      const { textPath, jsonPath } = await archiveReport(result, { dir: options.out });
      process.stderr.write(`report archived: ${textPath} and ${jsonPath}\n`);
    } catch (error) {
      // Nothing measured is lost: the JSON report goes to stdout instead.
      archived = false;
      const where = jsonToStdout ? 'the JSON report above on stdout is the only copy' : 'the JSON report follows on stdout';
      process.stderr.write(`cipherbench: ${error.message}; ${where}\n`);
      if (!jsonToStdout) process.stdout.write(formatJsonReport(result));
    }
  }
  const exported = await writeExports(result, options);

  if (result.interrupted) return EXIT_INTERRUPTED;
  if (!archived || !exported || regressed || result.cases.some((caseResult) => caseResult.status === 'failed')) return EXIT_FAILED;
  return EXIT_OK;
}

// --json FILE, --markdown and --html, each written whole; true when every
// one asked for was written.
async function writeExports(result, options) {
  const exports = [];
  if (typeof options.json === 'string' && options.json !== '-') {
    const { formatJsonReport } = await import('../report/json-report.js');
    exports.push(['JSON', options.json, formatJsonReport]);
  }
  if (options.markdown) {
    const { formatMarkdownReport } = await import('../report/markdown-report.js');
    exports.push(['Markdown', options.markdown, formatMarkdownReport]);
  }
  if (options.html) {
    const { formatHtmlReport } = await import('../report/html-report.js');
    exports.push(['HTML', options.html, formatHtmlReport]);
  }
  if (exports.length === 0) return true;
  const { writeExportFile } = await import('../report/export-file.js');
  let written = true;
  for (const [kind, file, format] of exports) {
    try {
      await writeExportFile(file, format(result));
      process.stderr.write(`${kind} report written: ${file}\n`);
    } catch (error) {
      written = false;
      process.stderr.write(`cipherbench: the ${kind} report was not written: ${error.message}\n`);
    }
  }
  return written;
}
