import { readFile } from 'node:fs/promises';

// How busy the whole machine is, from Linux's /proc: what else was running
// while a case was measured. On a shared or virtual machine the figures of
// a run depend on its neighbours as much as on the code; recording them
// lets a reader tell a slow relay from a busy host.

// The machine's CPU time so far, in ticks summed over every core, from the
// first line of /proc/stat: { idle, steal, total }, or null without /proc.
// idle counts iowait too: a core waiting on a disk is free for a relay.
export async function readCpuTimes() {
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
  return { idle: idle + iowait, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

// The one-minute load average, or null without /proc.
export async function readLoadAverage() {
  try {
    return Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]);
  } catch {
    return null;
  }
}

// { idle, steal }: the shares of the machine's CPU time between two reads
// of readCpuTimes that no process used and that the hypervisor gave to
// other guests. null when either read is missing or no time passed.
export function cpuSharesBetween(before, after) {
  if (!before || !after || after.total <= before.total) return null;
  const total = after.total - before.total;
  return { idle: (after.idle - before.idle) / total, steal: (after.steal - before.steal) / total };
}

// What else the machine did while something was measured: call before,
// then call what it resolves with after. The result is the one-minute load
// average just before, the shares of all cores' time left idle and stolen
// by the hypervisor over it (null without /proc), and the traffic engine's
// own CPU share as iperf3 -J reports it for each end (null for an engine
// that does not measure itself).
export async function watchMachine() {
  const [loadAverage, before] = await Promise.all([readLoadAverage(), readCpuTimes()]);
  return async (engineCpu) => {
    const shares = cpuSharesBetween(before, await readCpuTimes());
    return { loadAverage, idle: shares?.idle ?? null, steal: shares?.steal ?? null, engineCpu: engineCpu ?? null };
  };
}
