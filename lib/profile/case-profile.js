import { firstReason } from '../process/readiness.js';
import { profiledRelays, readProfiles } from './cpu-profile.js';
import { readPerf, startPerf } from './perf-record.js';
import { countSyscalls, straceUnavailable } from './syscall-count.js';

// --profile as a step of one run of a case (docs/profiles.md): our relays
// start under V8's CPU profiler, a reference row's are sampled by perf,
// and after the transfer our relays' system calls are counted on a pair of
// their own. `name` names the run's files in `dir`; `link` and `remote`
// are where the run's server half is, if not here. The run asks it, in
// order: relaySpecs, listening, measured, then outcome once every child
// has exited (the profiles are written as the relays exit).
export function caseProfiler({ dir, name, link = null, remote = null }) {
  const away = link ?? remote;
  let profiling = null;
  let perf = null;
  let perfStopReason = null;
  let syscalls = null;
  return {
    // The relays to start: ours with the profiler's flags.
    async relaySpecs(relays) {
      profiling = await profiledRelays(relays, { dir, name, remote: Boolean(remote) });
      return profiling.specs;
    },
    // A reference row's relays are other programs: perf samples them instead.
    async listening(relays) {
      if (profiling.reference && !away) perf = await startPerf(relays, { dir, name: profiling.name });
    },
    // `restart` stops the profiled relays and starts the case's own again;
    // `transfer(listeners)` moves a short transfer through them.
    async measured({ measured, restart, waits, signal, transfer }) {
      if (perf?.stop) perfStopReason = await perf.stop();
      if (!measured.sender || !profiling.files) return;
      syscalls = link
        ? { reason: "not counted across a --link: strace would run outside the relays' namespaces" }
        : await straceUnavailable().then((reason) => reason && { reason });
      syscalls ??= await countOnFreshRelays({
        restart,
        waits,
        signal,
        transfer,
        outputFile: profiling.files.client.replace(/-relay-client\.cpuprofile$/, ''),
      });
    },
    // What --profile gives the run: our relays' CPU profiles and system
    // call counts, a reference row's perf samples, or why there are none;
    // null when the run ended before its relays were planned.
    async outcome() {
      if (profiling === null) return null;
      if (profiling.files) return { ...(await readProfiles(profiling.files)), syscalls };
      if (perf?.files) return { ...(await readPerf(perf.files, perfStopReason)), syscalls: null };
      const reason =
        perf?.reason ??
        (profiling.reference && away ? 'perf runs on this host only: the relay server is not here' : profiling.reason);
      return { files: null, top: null, reason, syscalls: null };
    },
  };
}

// The system call count, on a relay pair of its own: the profiled pair
// stops first (writing its CPU profiles), so strace's stops at every call
// neither slow the measured transfer nor show in the CPU profile.
async function countOnFreshRelays({ restart, waits, signal, transfer, outputFile }) {
  const fresh = await restart();
  const notReady = await firstReason(fresh.map((relay) => relay.child.ready(relay.child.readiness, waits)));
  if (notReady) return { reason: `the relays for the count did not start: ${notReady}` };
  return countSyscalls(fresh, { transfer: () => transfer(fresh.map((relay) => relay.child)), outputFile, signal });
}
