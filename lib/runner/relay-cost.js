// @ts-check
import { costBetween, readProcessCost } from '../process/process-cost.js';

// What a case's relay pair spends on the workload: mark() when counting
// should start (once every process listens, so what starting a relay and
// loading its code cost is left out and the figure per GB does not depend
// on how long a run lasts; again when a warm-up ends), read() when the
// workload is done: { client, server } as costBetween gives them, or null
// for a case without relays (direct), whose relays run on another host, or
// when either read failed: half a cost would read as a cheap relay.
export function relayCostMeter(relays) {
  let marked = null;
  return {
    mark: async () => {
      marked = await readRelayCosts(relays);
    },
    read: async () => relayCost(marked, await readRelayCosts(relays)),
  };
}

async function readRelayCosts(relays) {
  // A remote relay's pid here is its ssh's: its cost is not this host's to read.
  if (relays.length === 0 || relays.some((relay) => relay.child.remote)) return null;
  const costs = await Promise.all(relays.map((relay) => readProcessCost(relay.child.pid)));
  return Object.fromEntries(relays.map((relay, at) => [relay.role, costs[at]]));
}

function relayCost(before, after) {
  if (!before || !after) return null;
  const client = costBetween(before.client, after.client);
  const server = costBetween(before.server, after.server);
  return client && server ? { client, server } : null;
}
