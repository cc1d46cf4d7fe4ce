// @ts-check
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { earlySignal, releaseSignals } from './early-signals.js';
import { EXIT_INPUT, exitCodeForSignal } from '../errors.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

// Commands that turn SIGINT/SIGTERM/SIGHUP into an orderly stop of their own.
const HANDLES_SIGNALS = new Set([
  'run',
  'requests',
  'server',
  'client',
  'echo',
  'udp-echo',
  'sink',
  'http-target',
  'bare-relay',
]);

// What every entry of the command line shares (main.js, relay-main.js):
// the program, its usage errors in one line, exit codes, early signals.
// `register(program)` adds the commands.
export async function runProgram(register, argv = process.argv) {
  const program = new Command('cipherbench')
    .description(
      'How fast does a cipher, a preset chain or a proxy (ours, Xray, sing-box, shadowsocks-rust, ...) carry a stream or requests on this machine? iperf3 or wrk through real relay pairs, ranked and archived.',
    )
    .version(version)
    .exitOverride()
    .configureOutput({ outputError: (message, write) => write(usageLine(message)) })
    .hook('preAction', (_, action) => {
      releaseSignals();
      // run stops its children and archives what it has; a relay closes and
      // exits 0. Any other command has not started yet: stop as interrupted.
      if (earlySignal() && !HANDLES_SIGNALS.has(action.name())) process.exit(exitCodeForSignal(earlySignal()));
    });
  register(program);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version "fail" with exit code 0; real usage errors are 2.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_INPUT;
      return;
    }
    if (error.exitCode === undefined) throw error;
    process.stderr.write(`cipherbench: ${error.message}\n`);
    process.exitCode = error.exitCode;
  }
}

// Commander's own usage errors in the tool's one-line form: 'error: unknown
// option '--durations'\n(Did you mean --duration?)' becomes
// "cipherbench: unknown option '--durations': did you mean --duration? (see --help)".
export function usageLine(message) {
  const [first, ...rest] = message
    .trim()
    .replace(/^error: /, '')
    .split('\n');
  const hints = rest.map((line) => line.replace(/^\((.*)\)$/, '$1').replace(/^Did you/, 'did you')).filter(Boolean);
  return `cipherbench: ${[first.replace(/\.$/, ''), ...hints].join(': ')} (see --help)\n`;
}

// A command's action for commander, from a function that resolves with
// the command's exit code (lib/errors.js has them all).
export const actionWithExitCode =
  (action) =>
  async (...args) => {
    process.exitCode = await action(...args);
  };
