// A measurement that could not be made for a reason outside this program:
// nothing listening, a relay that closed the connection, an echo that came
// back changed, a peer that stopped answering. The CLI prints the message
// as one line and exits 1, the code iperf3 uses when a test fails; a bug
// keeps its stack instead.
export const EXIT_MEASUREMENT = 1;

export function measurementError(message) {
  const error = new Error(message);
  error.exitCode = EXIT_MEASUREMENT;
  return error;
}
