import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Children that outlive a runner nobody could stop cleanly (SIGKILL, an
// out-of-memory kill): the death signal processes.js asks for ends most of
// them, but not where setpriv is missing, nor one started in the instant
// before its parent died. So each process that starts children keeps a
// ledger of them, a file named for itself, and a later run clears what
// a dead owner left.
//
// Only a process recorded here with the same pid AND the same start time
// (the kernel's, in clock ticks since boot) is ever signalled. A pid alone
// can be reused by anything; a pid and its start time name one process for
// the life of the machine, so a stranger holding the port, or one that got
// a recycled pid, is never touched: the port check names it as before.
// Linux only (/proc); elsewhere the ledger is off and a busy port is
// refused, naming its holder.

const LEDGER_DIR = path.join(os.tmpdir(), `cipherbench-${process.getuid?.() ?? 'user'}`, 'children');
const children = new Map();
let self;

// The start time of process `pid` (field 22 of /proc/PID/stat), or null
// when it is gone or there is no /proc.
export function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: count after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const ledgerFile = (pid) => path.join(LEDGER_DIR, `${pid}.json`);

// A folder only this user can write: another user must not be able to
// plant a ledger that names processes for us to kill.
function ownLedgerDir() {
  try {
    mkdirSync(LEDGER_DIR, { recursive: true, mode: 0o700 });
    const stat = lstatSync(LEDGER_DIR);
    return stat.isDirectory() && stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function save() {
  try {
    if (children.size === 0) rmSync(ledgerFile(process.pid), { force: true });
    else writeFileSync(ledgerFile(process.pid), JSON.stringify({ owner: self, children: [...children.values()] }));
  } catch {
    // A ledger that cannot be written costs only the later clean-up.
  }
}

// Records a child as it starts; forgetChild once it has ended.
export function recordChild(pid, command) {
  self ??= { pid: process.pid, start: startTime(process.pid) };
  if (!pid || self.start === null || !ownLedgerDir()) return;
  const start = startTime(pid);
  if (start === null) return;
  children.set(pid, { pid, start, command });
  save();
}

export function forgetChild(pid) {
  if (children.delete(pid)) save();
}

// Ends the children left by owners that are gone (or whose pid now names
// another process) and removes their ledgers; resolves with what it ended,
// [{ pid, command }], for the run to say. A live owner's ledger is left
// alone: that is another run in progress.
export async function clearLeftovers() {
  if (!existsSync('/proc/self/stat') || !existsSync(LEDGER_DIR) || !ownLedgerDir()) return [];
  const cleared = [];
  for (const name of readdirSync(LEDGER_DIR)) {
    const file = path.join(LEDGER_DIR, name);
    let ledger;
    try {
      ledger = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    const { owner, children: recorded = [] } = ledger ?? {};
    if (!owner || startTime(owner.pid) === owner.start) continue;
    for (const child of recorded) {
      if (startTime(child.pid) !== child.start) continue;
      try {
        process.kill(child.pid, 'SIGKILL');
        cleared.push({ pid: child.pid, command: child.command });
      } catch {
        // Ended between the check and the signal.
      }
    }
    rmSync(file, { force: true });
  }
  // The ports are free only once the kernel has reaped them.
  for (let tries = 0; tries < 100 && cleared.some(({ pid }) => startTime(pid) !== null && !isZombie(pid)); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return cleared;
}

function isZombie(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
