import { readdir, readFile, readlink } from 'node:fs/promises';
import net from 'node:net';
import { inputError } from '../errors.js';
import { runCommand } from './processes.js';
import { listeningInodes } from './socket-table.js';

const ROLE_NAMES = { client: 'relay client', server: 'relay server', target: 'iperf3 -s' };

// Whether a listener could bind host:port now. Binding is the real test: a
// holder on 0.0.0.0 or [::] blocks 127.0.0.1 as surely as one on 127.0.0.1.
export function isPortFree(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

// Throws one input error listing every busy port with its holder, so the
// run stops before any process starts rather than failing case after case.
export async function assertPortsFree(ports) {
  const busy = [];
  for (const [role, port] of Object.entries(ports)) {
    if (await isPortFree(port)) continue;
    const holder = await findPortHolder(port);
    const who = holder ? `pid ${holder.pid}${holder.command ? ` (${holder.command})` : ''}` : 'another process';
    busy.push(`port ${port} (${ROLE_NAMES[role]}) is already in use by ${who}`);
  }
  if (busy.length > 0) {
    throw inputError(`${busy.join('; ')}: stop it, or pick free ports with --ports CLIENT,SERVER,TARGET`);
  }
}

// { pid, command } of the process listening on a TCP port, when the OS will
// say (another user's processes are hidden without privileges); else null.
export async function findPortHolder(port) {
  return (await holderFromSs(port)) ?? (await holderFromProc(port));
}

export async function holderFromSs(port) {
  let stdout;
  try {
    stdout = await runCommand('ss', ['-ltnpH', `sport = :${port}`], { timeoutMs: 5000 });
  } catch {
    return null;
  }
  const match = /users:\(\("([^"]*)",pid=(\d+)/.exec(stdout);
  if (!match) return null;
  const pid = Number(match[2]);
  return { pid, command: (await programName(pid)) ?? match[1] };
}

// What a person would call the process: argv[0] without its folder. The
// kernel's comm is the main thread's name, which Node 24 sets to
// "MainThread", so ss and /proc/PID/comm no longer say "node".
async function programName(pid) {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const argv0 = cmdline.split('\0')[0];
  if (argv0) return argv0.split('/').pop();
  return (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim() || null;
}

// Linux without iproute2: /proc/net/tcp{,6} gives the listening socket's
// inode, and the process holding it has a /proc/PID/fd link to socket:[inode].
export async function holderFromProc(port) {
  const inodes = await listeningInodes(port);
  if (!inodes || inodes.size === 0) return null;
  let pids;
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds;
    try {
      fds = await readdir(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => null);
      if (link && inodes.has(link)) {
        return { pid: Number(pid), command: await programName(pid) };
      }
    }
  }
  return null;
}
