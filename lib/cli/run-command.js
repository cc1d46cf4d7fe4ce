import { DEFAULT_DURATION, DEFAULT_PARALLEL, DEFAULT_PORTS } from '../runner/options.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_INTERRUPTED = 130;

export function registerRunCommand(program) {
  program
    .command('run [file]', { isDefault: true })
    .description('measure every preset chain in FILE (default: ./cases.js here, else the bundled set) with iperf3 through a relay pair, then rank and archive them')
    .option('--duration <seconds>', 'seconds iperf3 sends per case (iperf3 -t)', String(DEFAULT_DURATION))
    .option('--parallel <streams>', 'parallel iperf3 streams (iperf3 -P)', String(DEFAULT_PARALLEL))
    .option('--filter <text>', 'run only case number TEXT, or the cases whose JSON contains TEXT')
    .option('--ports <client,server,target>', 'ports of the relay client, relay server and iperf3 -s', Object.values(DEFAULT_PORTS).join(','))
    .option('--out <dir>', 'folder the report is archived in', './reports')
    .option('--no-archive', 'do not write the report to --out')
    .option('--json', 'print the JSON report on stdout, and the text on stderr')
    .option('--no-color', 'never colour the text (as NO_COLOR does); colour is only used on a terminal')
    .action(async (file, options) => {
      process.exitCode = await runCommand(file, options);
    });
}

// NO_COLOR (https://no-color.org): present and not empty turns colour off.
const colorFor = (stream, options) =>
  options.color !== false && !process.env.NO_COLOR && Boolean(stream.isTTY);

async function runCommand(file, options) {
  // Loaded here, not at the top: execa and systeminformation cost a fifth
  // of a second, and every relay process starts through this same CLI.
  const [{ run }, textReport, { formatJsonReport }, { archiveReport }, { createProgress }] = await Promise.all([
    import('../runner/run.js'),
    import('../report/text-report.js'),
    import('../report/json-report.js'),
    import('../report/archive.js'),
    import('../report/progress.js'),
  ]);
  // With --json, stdout carries only JSON; the person reads stderr.
  const out = options.json ? process.stderr : process.stdout;
  const color = colorFor(out, options);
  const write = (text) => out.write(`${text}\n\n`);

  // The first Ctrl-C (or SIGTERM) stops the case running and keeps what was
  // measured; a second one means "now", and execa's cleanup still stops
  // every child as this process exits.
  const controller = new AbortController();
  const onSignal = (name) => () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    controller.abort(name);
  };
  const handlers = { SIGINT: onSignal('SIGINT'), SIGTERM: onSignal('SIGTERM') };
  for (const [name, handler] of Object.entries(handlers)) process.on(name, handler);

  let progress = null;
  const onEvent = (event) => {
    if (event.type === 'run-started') {
      write(textReport.formatHeader(event.result, { color }));
      write(`running ${event.total} tests...`);
      progress = createProgress({
        stream: process.stderr,
        total: event.total,
        color: colorFor(process.stderr, options),
        duration: event.result.options.duration,
      });
    } else if (event.type === 'case-started') {
      progress.caseStarted(event.case, event.position);
    } else if (event.type === 'case-finished') {
      progress.caseFinished(event.case);
      // The live line shares the terminal with stdout: clear it before the
      // block lands; the next case draws it again.
      progress.stop();
      write(textReport.formatCaseBlock(event.case, { color }));
    }
  };

  let result;
  try {
    result = await run({
      casesFile: file,
      duration: options.duration,
      parallel: options.parallel,
      filter: options.filter ?? null,
      ports: options.ports,
      signal: controller.signal,
      onEvent,
    });
  } finally {
    progress?.stop();
    for (const [name, handler] of Object.entries(handlers)) process.off(name, handler);
  }

  out.write(`${textReport.formatRanking(result, { color })}\n`);
  if (options.json) process.stdout.write(formatJsonReport(result));

  let archived = true;
  if (options.archive) {
    try {
      const { textPath, jsonPath } = await archiveReport(result, { dir: options.out });
      process.stderr.write(`report archived: ${textPath} and ${jsonPath}\n`);
    } catch (error) {
      // Nothing measured is lost: the JSON report goes to stdout instead.
      archived = false;
      const where = options.json ? 'the JSON report above on stdout is the only copy' : 'the JSON report follows on stdout';
      process.stderr.write(`cipherbench: ${error.message}; ${where}\n`);
      if (!options.json) process.stdout.write(formatJsonReport(result));
    }
  }

  if (result.interrupted) return EXIT_INTERRUPTED;
  if (!archived || result.cases.some((caseResult) => caseResult.status === 'failed')) return EXIT_FAILED;
  return EXIT_OK;
}
