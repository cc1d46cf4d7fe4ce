import { readdirSync, readFileSync } from 'node:fs';

// What a process holds and has used, from /proc: open file descriptors,
// resident memory, CPU time and the processes below it.
export const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;

// Resident memory by kind, in bytes: anonymous (heaps, buffers: what a leak
// grows) and file-backed (the node binary's pages as they are first run).
export function rssParts(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)[1]) * 1024;
  return { rss: kB('VmRSS'), anon: kB('RssAnon'), file: kB('RssFile') };
}

export const rssBytes = (pid) => rssParts(pid).rss;

// The process's largest resident anonymous mappings, for a failure message
// that says where memory went: "[heap]" is the main malloc arena, a 64 MB
// mapping a thread's malloc arena, other unnamed ones V8's pages or large
// allocations. Each as "name size/resident MB".
export function largestAnonymousMappings(pid, count = 6) {
  const mappings = [];
  let current = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const [, start, end, inode, name] = head;
      current =
        inode === '0' && !name.startsWith('/')
          ? { name: name || 'anon', size: parseInt(end, 16) - parseInt(start, 16), rss: 0 }
          : null;
      if (current) mappings.push(current);
    } else if (current && line.startsWith('Rss:')) {
      current.rss = Number(/(\d+) kB/.exec(line)[1]) * 1024;
    }
  }
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
  return mappings
    .sort((a, b) => b.rss - a.rss)
    .slice(0, count)
    .map((m) => `${m.name} ${mb(m.size)}/${mb(m.rss)} MB`)
    .join(', ');
}

// CPU seconds (user and system) a process has used so far, in USER_HZ
// ticks of 1/100 s, Linux's on every architecture the programs run on
// (lib/process/process-cost.js asks getconf for the runner's figures).
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// Every process below `root`: how a program or test sees the children of
// a CLI it started, which it cannot get from an observer.
export function descendants(root) {
  const parents = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name may hold spaces and parentheses; ppid follows the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(name), ppid);
    } catch {
      // The process ended while the table was read.
    }
  }
  const found = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = [...parents].filter(([, ppid]) => frontier.includes(ppid)).map(([pid]) => pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

// Running, not merely present: a zombie (dead, not yet reaped by its
// parent, init for an orphan) counts as gone.
export function isRunning(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

// '1234 (iperf3 -s -p 1083, state S, parent 1)': what a pid left alive is,
// read at once (it may be gone a moment later).
export function describeProcess(pid) {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return `${pid} (${command || '?'}, state ${state}, parent ${parent})`;
  } catch {
    return `${pid} (gone as it was read)`;
  }
}
