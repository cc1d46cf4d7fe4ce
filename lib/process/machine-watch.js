import { readFile } from 'node:fs/promises';
import { clockTicksPerSecond, readProcessCost } from './process-cost.js';

// How busy the whole machine is, from Linux's /proc: what else was running
// while a case was measured. On a shared or virtual machine the figures of
// a run depend on its neighbours as much as on the code; recording them
// lets a reader tell a slow relay from a busy host.

// The machine's CPU time so far, in ticks summed over every core, from the
// first line of /proc/stat: { idle, steal, busy, total }, or null without
// /proc. idle counts iowait too: a core waiting on a disk is free for a
// relay. busy is time processes ran (user, nice, system): interrupts are
// left out, as a kernel that accounts their time apart also leaves it out
// of every process's own.
async function readCpuTimes() {
  let text;
  try {
    text = await readFile('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  const fields = text.split('\n', 1)[0].trim().split(/\s+/);
  if (fields[0] !== 'cpu') return null;
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = fields.slice(1, 9).map(Number);
  return {
    idle: idle + iowait,
    steal,
    busy: user + nice + system,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

// The one-minute load average, or null without /proc.
async function readLoadAverage() {
  try {
    return Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]);
  } catch {
    return null;
  }
}

// { idle, steal }: the shares of the machine's CPU time between two reads
// of readCpuTimes that no process used and that the hypervisor gave to
// other guests. null when either read is missing or no time passed.
function cpuSharesBetween(before, after) {
  if (!before || !after || after.total <= before.total) return null;
  const total = after.total - before.total;
  return { idle: (after.idle - before.idle) / total, steal: (after.steal - before.steal) / total };
}

// What else the machine did while something was measured: call before,
// then call what it resolves with after. The result is the one-minute load
// average just before; the shares of all cores' time left idle, stolen by
// the hypervisor, and used by processes other than this one and those it
// started (`others`: whatever ran beside the measurement, took from it);
// null for each without /proc; and the traffic engine's own CPU share as
// iperf3 -J reports it for each end (null for an engine that does not
// measure itself). This process's tree holds every process of a run (the
// relays, the target, the traffic client, reaped when it exits), so
// nothing of the run's own counts as another's.
export async function watchMachine() {
  const [loadAverage, before, oursBefore] = await Promise.all([
    readLoadAverage(),
    readCpuTimes(),
    readProcessCost(process.pid),
  ]);
  return async (engineCpu) => {
    const [after, oursAfter, ticks] = await Promise.all([
      readCpuTimes(),
      readProcessCost(process.pid),
      clockTicksPerSecond(),
    ]);
    const shares = cpuSharesBetween(before, after);
    return {
      loadAverage,
      idle: shares?.idle ?? null,
      steal: shares?.steal ?? null,
      others: othersShare(before, after, oursBefore, oursAfter, ticks),
      engineCpu: engineCpu ?? null,
    };
  };
}

// The share of all cores' time that processes outside ours ran for,
// between two reads; null when any read is missing. Per-process times and
// the machine's are counted apart and round differently, so ours can
// exceed what the machine says ran: that reads as none.
function othersShare(before, after, oursBefore, oursAfter, ticks) {
  if (!before || !after || !oursBefore || !oursAfter || after.total <= before.total) return null;
  const ours = (oursAfter.cpuSeconds - oursBefore.cpuSeconds) * ticks;
  return Math.max(0, after.busy - before.busy - ours) / (after.total - before.total);
}
