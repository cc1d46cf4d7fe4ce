// Errors a person caused by what they typed or wrote: printed as one line
// with what to do, never a stack, and exit code 2 (as iperf3 and hyperfine
// use for bad usage). Anything else reaching the top is a bug and keeps its stack.
export const EXIT_USAGE = 2;

export function usageError(message) {
  const error = new Error(message);
  error.exitCode = EXIT_USAGE;
  return error;
}
