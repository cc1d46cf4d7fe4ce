import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

// What a process has cost the machine so far, read from Linux's /proc for
// its pid: CPU seconds in user and kernel mode, and its peak resident set.
// Nothing is sampled: the kernel keeps both totals, so one read at the end
// sees every tick and the highest RSS the process ever had.

// /proc/PID/stat counts CPU time in clock ticks of USER_HZ, which
// `getconf CLK_TCK` reports. Linux has fixed it at 100 on every architecture
// for decades, so that is the fallback when getconf is missing.
const FALLBACK_CLK_TCK = 100;
let clockTicks = null;

function clockTicksPerSecond() {
  clockTicks ??= promisify(execFile)('getconf', ['CLK_TCK'], { timeout: 5000 }).then(
    ({ stdout }) => {
      const ticks = Number(stdout.trim());
      return Number.isInteger(ticks) && ticks > 0 ? ticks : FALLBACK_CLK_TCK;
    },
    () => FALLBACK_CLK_TCK,
  );
  return clockTicks;
}

// { cpuSeconds, userSeconds, systemSeconds, peakRssBytes } of a live process,
// or null when it cannot be read: no /proc (macOS, Windows), or the process
// has gone (its totals went with it).
export async function readProcessCost(pid) {
  let stat;
  let status;
  try {
    [stat, status] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile(`/proc/${pid}/status`, 'utf8')]);
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields
  // after the last ')' start at field 3 (state); utime and stime are 14, 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = await clockTicksPerSecond();
  const userSeconds = Number(fields[14 - 3]) / ticks;
  const systemSeconds = Number(fields[15 - 3]) / ticks;
  // VmHWM ("high water mark") is the peak RSS, in kB (KiB) as the kernel says.
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!hwm || !Number.isFinite(userSeconds) || !Number.isFinite(systemSeconds)) return null;
  return {
    cpuSeconds: roundTicks(userSeconds + systemSeconds),
    userSeconds,
    systemSeconds,
    peakRssBytes: Number(hwm[1]) * 1024,
  };
}

// The cost of a stretch of a process's life: CPU spent between two reads,
// and the peak RSS as of the later one (a high-water mark cannot be split).
export function costBetween(before, after) {
  if (!before || !after) return null;
  const userSeconds = roundTicks(after.userSeconds - before.userSeconds);
  const systemSeconds = roundTicks(after.systemSeconds - before.systemSeconds);
  return { cpuSeconds: roundTicks(userSeconds + systemSeconds), userSeconds, systemSeconds, peakRssBytes: after.peakRssBytes };
}

// Tick counts divided by the tick rate are exact decimals with at most a
// few places; a difference of two such floats is not (0.37 - 0.12 =
// 0.24999999999999997), so it is rounded back to the microsecond.
const roundTicks = (seconds) => Math.round(seconds * 1e6) / 1e6;
