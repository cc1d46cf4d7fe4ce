// The two errors a person can meet, as opposed to a bug: each carries the
// exit code the CLI ends with, and the CLI prints its message as one line,
// without a stack. Anything else reaching the top is a bug and keeps its stack.

// Bad input: an option, a cases file, a result file, a missing program, a
// busy port. The message says what to do next. 2, as iperf3 and hyperfine
// use for bad usage.
export const EXIT_INPUT = 2;

// A measurement that could not be made for a reason outside this program:
// nothing listening, a relay that closed the connection, an echo that came
// back changed, a peer that stopped answering. 1, the code iperf3 uses when
// a test fails.
export const EXIT_MEASUREMENT = 1;

export const inputError = (message) => withExitCode(message, EXIT_INPUT);
export const measurementError = (message) => withExitCode(message, EXIT_MEASUREMENT);

function withExitCode(message, exitCode) {
  return Object.assign(new Error(message), { exitCode });
}
