// A fault in what a person gave the runner (its options, the cases file, a
// missing iperf3, a busy port): the message says what to do next and the CLI
// prints it as is, without a stack, and exits 2 — the same contract as
// lib/cli/usage-error.js, kept here so the runner does not lean on the CLI.
export const EXIT_INPUT = 2;

export function inputError(message) {
  const error = new Error(message);
  error.exitCode = EXIT_INPUT;
  return error;
}
