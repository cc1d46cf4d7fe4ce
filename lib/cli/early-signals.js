// @ts-check
// The signals that end a command in order: Ctrl-C, `kill`, and SIGHUP, which
// a terminal sends as it closes.
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// Those that arrive while the CLI is still loading (about a fifth of a
// second, more on a busy machine) would kill it the default way, before any
// command could stop its children or write its report. The bin holds them
// from its first line; once a command is about to start, the hold is
// released and the command decides what an early signal means.
const received = [];
const remember = (signal) => received.push(signal);

export function holdSignals() {
  for (const signal of STOP_SIGNALS) process.on(signal, remember);
}

export function releaseSignals() {
  for (const signal of STOP_SIGNALS) process.off(signal, remember);
}

// The first signal held, or null.
export const earlySignal = () => received[0] ?? null;
