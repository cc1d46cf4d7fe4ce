import { readFile } from 'node:fs/promises';

// The TCP connections with one end on `port`, in any state but LISTEN, from
// the kernel's tables: a Set of keys, one a connection (its two ends, so
// the client's and the server's lines of a loopback connection are one),
// or null when there are no tables to read (no /proc). Read before and
// after a run, the keys new in the second are the connections opened
// meanwhile: one that closed is still there, in TIME_WAIT at the end that
// closed first, for a minute. A connection reset leaves no TIME_WAIT, and
// loopback may reuse a port in TIME_WAIT for a new connection to the same
// end (tcp_tw_reuse), so the count is a lower bound when ports run short.
export async function connectionsOn(port) {
  const keys = new Set();
  let readable = false;
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const line = /^ *\d+: ([0-9A-F]+:[0-9A-F]{4}) ([0-9A-F]+:[0-9A-F]{4}) ([0-9A-F]{2}) /gm;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = await readFile(table, 'utf8');
    } catch {
      continue;
    }
    readable = true;
    if (!text.includes(`:${hexPort} `)) continue;
    for (const [, local, remote, state] of text.matchAll(line)) {
      if (state === '0A') continue;
      if (!local.endsWith(`:${hexPort}`) && !remote.endsWith(`:${hexPort}`)) continue;
      keys.add(local < remote ? `${local} ${remote}` : `${remote} ${local}`);
    }
  }
  return readable ? keys : null;
}

// How many of `after`'s keys `before` lacks; null when either was not read.
export function openedBetween(before, after) {
  if (!before || !after) return null;
  let opened = 0;
  for (const key of after) if (!before.has(key)) opened += 1;
  return opened;
}
