// @ts-check
import { existsSync } from 'node:fs';
import { REPORT_OPTIONS } from '../report/report-options.js';
import { RUN_OPTIONS } from '../runner/run-options.js';
import { EXIT_FAILED, EXIT_OK, exitCodeForSignal, inputError } from '../errors.js';
import { earlySignal, STOP_SIGNALS } from './early-signals.js';
import { nearestName } from '../nearest-name.js';
import { addOptions, valuesFor } from './option-table.js';
import { actionWithExitCode } from './program.js';

export function registerRunCommand(program) {
  const command = program
    .command('run [file]', { isDefault: true })
    .description(
      'measure every case in FILE (default: ./cases.js here, else the bundled set): a preset chain through our relay pair, or a reference row (direct, plain, another implementation), with iperf3 or the built-in engine; then rank and archive them',
    );
  addOptions(addOptions(command, RUN_OPTIONS), REPORT_OPTIONS).action(
    actionWithExitCode((file, options) => {
      checkCommandName(
        file,
        program.commands.map((other) => other.name()),
      );
      return runCommand(file, options);
    }),
  );
}

// `cipherbench cipher` reaches run as its FILE, since run is the default
// command: a bare word that is no file here was most likely a command.
function checkCommandName(file, commands) {
  if (!file || !/^[a-z][a-z-]*$/.test(file) || existsSync(file)) return;
  const nearest = nearestName(file, commands);
  const hint = nearest ? `did you mean 'cipherbench ${nearest}'?` : `the commands are ${commands.join(', ')}`;
  throw inputError(`'${file}' is neither a command nor a cases file here: ${hint}`);
}

// `cipherbench requests [file]`: run --requests, said shorter.
export function registerRequestsCommand(program) {
  const command = program
    .command('requests [file]')
    .description(
      'the request workload (run --requests): concurrent HTTP/1.1 clients through every case in FILE to a built-in target; requests per second and latency percentiles, ranked and archived (docs/requests.md)',
    );
  // A bulk stream's and UDP's options are parsed but not listed: given,
  // they are refused saying why (lib/runner/run-options.js), not taken for a
  // typo.
  addOptions(
    addOptions(
      command,
      RUN_OPTIONS.filter((option) => option.name !== 'requests'),
      { hidden: (option) => Boolean(option.notForRequests) },
    ),
    REPORT_OPTIONS,
  ).action(actionWithExitCode((file, options) => runCommand(file, { ...options, requests: true })));
}

async function runCommand(file, options) {
  // Installed first: a Ctrl-C during start-up (the imports below take a
  // fifth of a second) must also end in a whole, incomplete report, not in
  // Node's default death by signal. The first Ctrl-C (or SIGTERM, or the
  // SIGHUP of a terminal closing) stops the run in progress and keeps what
  // was measured. A second one means "now":
  // the report of what was measured so far is written at once while every
  // child is stopped (SIGKILL for one that ignores SIGTERM), and the CLI
  // exits once both are done. Two at once are common
  // (`timeout -s INT` signals the child and its group, npm forwards what it
  // gets), so the second must never lose the report.
  const controller = new AbortController();
  let live = null;
  let hurried = false;
  let finishing = null;
  let reporter = null;
  let interimResult = null;
  const finishOnce = (result) => {
    finishing ??= reporter.finish(result);
    return finishing;
  };
  const hurry = async () => {
    hurried = true;
    reporter.stop();
    const written = finishOnce(interimResult(live, controller.signal.reason));
    // Loaded already: the run that made `live` started its children there.
    const { stopEveryChild } = await import('../process/processes.js');
    await Promise.all([written, stopEveryChild()]);
    process.exit(exitCodeForSignal(controller.signal.reason));
  };
  const onSignal = (name) => () => {
    // A closed terminal fails every later write to it (EIO): the archive,
    // not the screen, is what must survive.
    if (name === 'SIGHUP') ignoreWriteErrors();
    if (!controller.signal.aborted) {
      controller.abort(name);
      return;
    }
    // Before the run has started nothing is measured: the stop is short
    // and ends in the same report.
    if (!hurried && live) hurry();
  };
  const handlers = Object.fromEntries(STOP_SIGNALS.map((name) => [name, onSignal(name)]));
  for (const [name, handler] of Object.entries(handlers)) process.on(name, handler);
  // A signal held while the CLI loaded: the run starts already stopped, so
  // it still ends in a whole report, marked incomplete.
  if (earlySignal()) {
    if (earlySignal() === 'SIGHUP') ignoreWriteErrors();
    controller.abort(earlySignal());
  }

  let result;
  try {
    const runOptions = valuesFor(RUN_OPTIONS, options);
    // Loaded here, not at the top: execa and systeminformation cost a fifth
    // of a second, and every relay process starts through this same CLI.
    const { createReporter } = await import('../report/reporter.js');
    reporter = await createReporter(valuesFor(REPORT_OPTIONS, options));
    const runner = await import('../runner/run.js');
    interimResult = runner.interimResult;
    const onEvent = (event) => {
      if (event.type === 'run-started') live = event.result;
      if (!hurried) reporter.onEvent(event);
    };
    result = await runner.run({ casesFile: file, ...runOptions, signal: controller.signal, onEvent });
    if (!hurried) reporter.stop();
  } catch (error) {
    reporter?.stop();
    for (const [name, handler] of Object.entries(handlers)) process.off(name, handler);
    throw error;
  }
  // Held to the end, not only while the report is written: a signal then
  // must not kill the CLI between claiming the archive's names and filling
  // them, nor turn exit 130 into death by signal as the CLI exits.
  const { ok } = await finishOnce(result);
  if (result.interrupted) return exitCodeForSignal(result.interrupted);
  return ok ? EXIT_OK : EXIT_FAILED;
}

function ignoreWriteErrors() {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}
