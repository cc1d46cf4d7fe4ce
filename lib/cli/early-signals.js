// SIGINT and SIGTERM that arrive while the CLI is still loading (about a
// fifth of a second, more on a busy machine) would kill it the default way,
// before any command could stop its children or write its report. The bin
// holds them from its first line; once a command is about to start, the hold
// is released and the command decides what an early signal means.
const received = [];
const remember = (signal) => received.push(signal);

export function holdSignals() {
  process.on('SIGINT', remember);
  process.on('SIGTERM', remember);
}

export function releaseSignals() {
  process.off('SIGINT', remember);
  process.off('SIGTERM', remember);
}

// The first signal held, or null.
export const earlySignal = () => received[0] ?? null;
