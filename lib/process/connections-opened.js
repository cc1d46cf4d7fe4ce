import { clockTicksPerSecond } from './process-cost.js';
import { readTables } from './socket-table.js';

// Linux holds a closed connection in TIME_WAIT, at the end that closed
// first, for this long (TCP_TIMEWAIT_LEN), and its table line says how
// much of it is left.
const TIME_WAIT_SECONDS = 60;
const TIME_WAIT = '06';
const LISTEN = '0A';

// The TCP connections with one end on `port`, from the kernel's tables:
// { startedAt, live: Set of keys, timeWait: Map of key -> seconds left },
// a key a connection (its two ends, so the client's and the server's lines
// of a loopback connection are one), or null when there are no tables to
// read (no /proc).
export async function connectionsOn(port) {
  const startedAt = Date.now();
  const ticks = await clockTicksPerSecond();
  const live = new Set();
  const timeWait = new Map();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  // sl: local rem st tx:rx tr:when ...
  const line = /^ *\d+: ([0-9A-F]+:[0-9A-F]{4}) ([0-9A-F]+:[0-9A-F]{4}) ([0-9A-F]{2}) \S+ [0-9A-F]{2}:([0-9A-F]+) /gm;
  const texts = await readTables('/proc/net', ['tcp', 'tcp6']);
  for (const text of texts) {
    if (!text.includes(`:${hexPort} `)) continue;
    for (const [, local, remote, state, when] of text.matchAll(line)) {
      if (state === LISTEN) continue;
      if (!local.endsWith(`:${hexPort}`) && !remote.endsWith(`:${hexPort}`)) continue;
      const key = local < remote ? `${local} ${remote}` : `${remote} ${local}`;
      if (state === TIME_WAIT) timeWait.set(key, parseInt(when, 16) / ticks);
      else live.add(key);
    }
  }
  return texts.length > 0 ? { startedAt, finishedAt: Date.now(), live, timeWait } : null;
}

// How many connections were opened between two readings; null when either
// was not read. One in TIME_WAIT with more of it left than the time since
// `before` was read closed since then; one open now that was not then
// opened since. Not its ends alone: loopback reuses a port pair in
// TIME_WAIT for a new connection (tcp_tw_reuse), so a thousand connections
// a second to one port soon repeat pairs. A connection that opened and was
// reset in between (no TIME_WAIT) is missed, and so is one whose pair a
// later one took within the same run: 3,787 to 3,818 of 4,000 connections
// a round were counted in a check, so the count is a lower bound.
export function openedBetween(before, after) {
  if (!before || !after) return null;
  const since = (after.finishedAt - before.startedAt) / 1000;
  const opened = new Set();
  for (const [key, left] of after.timeWait) if (left > TIME_WAIT_SECONDS - since) opened.add(key);
  for (const key of after.live) if (!before.live.has(key)) opened.add(key);
  return opened.size;
}
