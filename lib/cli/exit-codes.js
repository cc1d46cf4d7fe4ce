import os from 'node:os';

// The exit codes commands share beside bad input's 2 (lib/errors.js): 0
// when all went as asked, 1 when what was asked for did not hold (a case
// failed or got slower, a report was not written), and 128 + the signal's
// number when a signal stopped it (130 SIGINT, 143 SIGTERM, 129 SIGHUP):
// what a shell reports for a program the signal killed, so a script's
// `$? -gt 128` and `timeout`'s conventions read a stopped run as stopped,
// though it stopped in order and kept what it measured.
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;

export const exitCodeForSignal = (signal) => 128 + (os.constants.signals[signal] ?? os.constants.signals.SIGINT);

// A command's action for commander, from a function that resolves with
// the command's exit code.
export const withExitCode = (action) => async (...args) => {
  process.exitCode = await action(...args);
};
