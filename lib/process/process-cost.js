import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { endianness } from 'node:os';

// What a process (with the processes it started) has cost the machine so
// far, read from Linux's /proc: CPU seconds in user and kernel mode, and
// the peak resident set.
// Nothing is sampled: the kernel keeps both totals, so one read at the end
// sees every tick and the highest RSS the process ever had.

// /proc/PID/stat counts CPU time in clock ticks of USER_HZ, which the
// kernel hands every process in its auxiliary vector as AT_CLKTCK (what
// `getconf CLK_TCK` prints), read here from /proc/self/auxv rather than by
// starting getconf: a child started in the middle of a run is one more
// that a signal can catch half-started. Linux has fixed it at 100 on every
// architecture for decades, so that is the fallback.
const FALLBACK_CLK_TCK = 100;
const AT_CLKTCK = 17;
let clockTicks = null;

export function clockTicksPerSecond() {
  clockTicks ??= Promise.resolve(readClockTicks());
  return clockTicks;
}

// The auxiliary vector: pairs of machine words (type, value), ending with
// type 0; a word is 8 bytes on a 64-bit process, 4 on a 32-bit one.
function readClockTicks() {
  let auxv;
  try {
    auxv = readFileSync('/proc/self/auxv');
  } catch {
    return FALLBACK_CLK_TCK;
  }
  const word = ['x64', 'arm64', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'].includes(process.arch) ? 8 : 4;
  const read = (at) => {
    if (word === 4) return endianness() === 'LE' ? auxv.readUInt32LE(at) : auxv.readUInt32BE(at);
    return Number(endianness() === 'LE' ? auxv.readBigUInt64LE(at) : auxv.readBigUInt64BE(at));
  };
  for (let at = 0; at + 2 * word <= auxv.length; at += 2 * word) {
    const type = read(at);
    if (type === 0) break;
    if (type === AT_CLKTCK) {
      const ticks = read(at + word);
      return Number.isInteger(ticks) && ticks > 0 ? ticks : FALLBACK_CLK_TCK;
    }
  }
  return FALLBACK_CLK_TCK;
}

// { cpuSeconds, userSeconds, systemSeconds, peakRssBytes } of a live process
// and every live process it started, or null when it cannot be read: no
// /proc (macOS, Windows), or the process has gone (its totals went with it).
// A relay may do part of its work in children (shadowsocks-libev runs its
// plugin, obfs-server or obfs-local, as one), so its cost is the tree's: CPU
// of each process and of the children it has reaped, and the sum of their
// peaks (an upper bound on the tree's peak: each is a high-water mark).
export async function readProcessCost(pid) {
  const root = await readOne(pid);
  if (!root) return null;
  const tree = [root, ...(await Promise.all((await descendantsOf(pid)).map(readOne))).filter(Boolean)];
  const sum = (field) => tree.reduce((total, one) => total + one[field], 0);
  const ticks = await clockTicksPerSecond();
  const userSeconds = sum('userTicks') / ticks;
  const systemSeconds = sum('systemTicks') / ticks;
  return {
    cpuSeconds: roundTicks(userSeconds + systemSeconds),
    userSeconds,
    systemSeconds,
    peakRssBytes: sum('peakRssBytes'),
  };
}

// One process's ticks (its own and its reaped children's) and peak RSS.
async function readOne(pid) {
  let stat;
  let status;
  try {
    [stat, status] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8'),
      readFile(`/proc/${pid}/status`, 'utf8'),
    ]);
  } catch {
    return null;
  }
  // VmHWM ("high water mark") is the peak RSS, in kB (KiB) as the kernel
  // says; a zombie has none, and is read as gone.
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  // utime, stime, cutime, cstime are fields 14 to 17.
  const [utime, stime, cutime, cstime] = statFields(stat)
    .slice(14 - 3, 18 - 3)
    .map(Number);
  if (!hwm || ![utime, stime, cutime, cstime].every(Number.isFinite)) return null;
  return { userTicks: utime + cutime, systemTicks: stime + cstime, peakRssBytes: Number(hwm[1]) * 1024 };
}

// The command name (field 2) may hold spaces and parentheses: the fields
// after the last ')' start at field 3 (state).
const statFields = (stat) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

// Every live process below `pid`, from the kernel's list of each thread's
// children (/proc/PID/task/TID/children).
async function descendantsOf(pid) {
  const found = [];
  for (let queue = [pid]; queue.length > 0;) {
    const children = await childrenOf(queue.shift());
    found.push(...children);
    queue.push(...children);
  }
  return found;
}

async function childrenOf(pid) {
  let threads;
  try {
    threads = await readdir(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const lists = await Promise.all(
    threads.map((thread) => readFile(`/proc/${pid}/task/${thread}/children`, 'utf8').catch(() => '')),
  );
  return lists.join(' ').split(/\s+/).filter(Boolean).map(Number);
}

// The cost of a stretch of a process's life: CPU spent between two reads,
// and the peak RSS as of the later one (a high-water mark cannot be split).
export function costBetween(before, after) {
  if (!before || !after) return null;
  const userSeconds = roundTicks(after.userSeconds - before.userSeconds);
  const systemSeconds = roundTicks(after.systemSeconds - before.systemSeconds);
  return {
    cpuSeconds: roundTicks(userSeconds + systemSeconds),
    userSeconds,
    systemSeconds,
    peakRssBytes: after.peakRssBytes,
  };
}

// Tick counts divided by the tick rate are exact decimals with at most a
// few places; a difference of two such floats is not (0.37 - 0.12 =
// 0.24999999999999997), so it is rounded back to the microsecond.
const roundTicks = (seconds) => Math.round(seconds * 1e6) / 1e6;
