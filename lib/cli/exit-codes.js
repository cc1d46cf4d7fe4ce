// The exit codes commands share beside bad input's 2 (lib/errors.js): 0
// when all went as asked, 1 when what was asked for did not hold (a case
// failed or got slower, a report was not written), 130 when interrupted,
// as a shell reports SIGINT.
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_INTERRUPTED = 130;

// A command's action for commander, from a function that resolves with
// the command's exit code.
export const withExitCode = (action) => async (...args) => {
  process.exitCode = await action(...args);
};
