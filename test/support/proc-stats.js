import { readdirSync, readFileSync } from 'node:fs';

// What a process holds, from /proc: open file descriptors and resident memory.
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
      current = inode === '0' && !name.startsWith('/') ? { name: name || 'anon', size: parseInt(end, 16) - parseInt(start, 16), rss: 0 } : null;
      if (current) mappings.push(current);
    } else if (current && line.startsWith('Rss:')) {
      current.rss = Number(/(\d+) kB/.exec(line)[1]) * 1024;
    }
  }
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
  return mappings.sort((a, b) => b.rss - a.rss).slice(0, count).map((m) => `${m.name} ${mb(m.size)}/${mb(m.rss)} MB`).join(', ');
}
