// What our long-running commands (relay server and client, the sink, the
// echo target) print once they listen, and what the runner waits for
// before it sends them anything; ssr-relay.py prints the same.
export const readyLine = (address) => `listening on ${address}`;
export const READY_LINE = /^listening on /;
