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

