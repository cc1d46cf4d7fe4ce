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
const EXIT_MEASUREMENT = 1;

export const inputError = (message) => withExitCode(message, EXIT_INPUT);
export const measurementError = (message) => withExitCode(message, EXIT_MEASUREMENT);

function withExitCode(message, exitCode) {
  return Object.assign(new Error(message), { exitCode });
}

// What JSON.parse said about `text`, as one line and the line it points
// at (null when unknown). V8 quotes a stretch of the text in some messages
// (`Unexpected token ']', ..."e"}],\n]\n" is not valid JSON`), which breaks
// the line a person reads; the quote gives the position instead.
export function jsonProblem(text, error) {
  const quoted = /^(Unexpected token '([\s\S])'), (\.\.\.)?"([\s\S]*?)"(\.\.\.)? is not valid JSON$/.exec(error.message);
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
