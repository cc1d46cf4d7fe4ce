// What the two multiplexing presets (mux, blinksocks-mux) share: one tunnel
// pool and one server (relay/mux-client.js, mux-server.js) carry both, so
// a tunnel's sessions have one bound and one renewal.
export const MOST_CONCURRENCY = 1024;
export const DEFAULT_CONCURRENCY = 8;
// V2Ray's and Xray's clients move to a new connection after 128 sessions
// (their ClientStrategy's MaxConnection); ours does the same, so session
// ids stay small and a long-lived tunnel is renewed.
export const SESSIONS_PER_TUNNEL = 128;

export const checkConcurrency = (value) =>
  Number.isInteger(value) && value >= 1 && value <= MOST_CONCURRENCY
    ? undefined
    : `must be an integer from 1 to ${MOST_CONCURRENCY}`;
