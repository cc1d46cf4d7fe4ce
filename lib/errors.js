import os from 'node:os';

// Every exit code cipherbench ends with, and the two errors a person can
// meet, as opposed to a bug: each carries the exit code the CLI ends with,
// and the CLI prints its message as one line, without a stack. Anything
// else reaching the top is a bug and keeps its stack.

// All went as asked.
export const EXIT_OK = 0;

// What was asked for did not hold: a case failed or got slower, a report
// was not written.
export const EXIT_FAILED = 1;

// Bad input: an option, a cases file, a result file, a missing program, a
// busy port. The message says what to do next. 2, as iperf3 and hyperfine
// use for bad usage.
export const EXIT_INPUT = 2;

// A measurement that could not be made for a reason outside this program:
// nothing listening, a relay that closed the connection, an echo that came
// back changed, a peer that stopped answering. 1, the code iperf3 uses when
// a test fails.
const EXIT_MEASUREMENT = 1;

// A signal stopped the run: 128 + the signal's number (130 SIGINT, 143
// SIGTERM, 129 SIGHUP), what a shell reports for a program the signal
// killed, so a script's `$? -gt 128` and `timeout`'s conventions read a
// stopped run as stopped, though it stopped in order and kept what it
// measured.
export const exitCodeForSignal = (signal) => 128 + (os.constants.signals[signal] ?? os.constants.signals.SIGINT);

export const inputError = (message) => errorWithExitCode(message, EXIT_INPUT);
export const measurementError = (message) => errorWithExitCode(message, EXIT_MEASUREMENT);

function errorWithExitCode(message, exitCode) {
  return Object.assign(new Error(message), { exitCode });
}

// What JSON.parse said about `text`, as one line and the line it points
// at (null when unknown). V8 quotes a stretch of the text in some messages
// (`Unexpected token ']', ..."e"}],\n]\n" is not valid JSON`), which breaks
// the line a person reads; the quote gives the position instead.
export function jsonProblem(text, error) {
  const quoted = /^(Unexpected token '([\s\S])'), (\.\.\.)?"([\s\S]*?)"(\.\.\.)? is not valid JSON$/.exec(
    error.message,
  );
  let position;
  let message = error.message;
  if (quoted) {
    const [, said, token, cut, context] = quoted;
    const start = text.indexOf(context);
    const at = start < 0 ? -1 : context.indexOf(token, cut ? Math.min(10, context.length - 1) : 0);
    position = at < 0 ? null : start + at;
    message = said;
  } else {
    const found = /at position (\d+)/.exec(message);
    position = found ? Number(found[1]) : null;
    message = message.replace(/ in JSON at position \d+[\s\S]*$/, '');
  }
  const line = position === null ? null : text.slice(0, position).split('\n').length;
  return { line, message: message.replace(/\s+/g, ' ') };
}
