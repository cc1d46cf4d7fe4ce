import { readdirSync, readFileSync } from 'node:fs';

// What a process holds, from /proc: open file descriptors and resident memory.
export const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;
export const rssBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
