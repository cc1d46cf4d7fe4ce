import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { inputError } from './input-error.js';

const INSTALL_HINT = 'install it with `sudo apt-get install iperf3` (Debian/Ubuntu) or `brew install iperf3` (macOS)';

const isExecutable = (file) => access(file, constants.X_OK).then(() => true, () => false);

// The iperf3 to run: the path given, else the first on PATH.
export async function findIperf3({ iperf3Path, env = process.env } = {}) {
  if (iperf3Path) {
    if (await isExecutable(iperf3Path)) return path.resolve(iperf3Path);
    throw inputError(`iperf3 not found at ${iperf3Path}: give the path of an installed iperf3, or ${INSTALL_HINT}`);
  }
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, 'iperf3');
    if (await isExecutable(candidate)) return candidate;
  }
  throw inputError(`iperf3 is not installed (not found on PATH): ${INSTALL_HINT}`);
}

// --forceflush makes 'Server listening' arrive when it is printed, not when
// a pipe buffer fills; -B keeps the target on loopback.
export const iperf3ServerArgs = (port) => ['-s', '-p', String(port), '-B', '127.0.0.1', '--forceflush'];
export const IPERF3_SERVER_READY = /Server listening on/;

// reverse (-R): iperf3 -s sends and iperf3 -c receives, so the data runs
// through the other half of each preset (server encode, client decode).
// end.sum_sent and end.sum_received still name the sending and receiving side.
export function iperf3ClientArgs({ port, duration, parallel, reverse = false }) {
  const args = ['-c', '127.0.0.1', '-p', String(port), '-t', String(duration), '-J'];
  if (parallel > 1) args.push('-P', String(parallel));
  if (reverse) args.push('-R');
  return args;
}

// Starts iperf3 -c; `result` resolves with execa's result once it ends,
// killed when `signal` aborts or after `timeoutMs`.
export function startIperf3Client(iperf3, options, { signal, timeoutMs }) {
  const subprocess = execa(iperf3, iperf3ClientArgs(options), {
    stdin: 'ignore',
    reject: false,
    timeout: timeoutMs,
    cancelSignal: signal,
    forceKillAfterDelay: 1000,
  });
  return { pid: subprocess.pid, result: subprocess, kill: () => subprocess.kill('SIGTERM') };
}

const pick = (sum) => (sum && typeof sum.bytes === 'number'
  ? { bytes: sum.bytes, seconds: sum.seconds, bits_per_second: sum.bits_per_second }
  : null);

// Reads iperf3 -J output: { sender, receiver } from end.sum_sent and
// end.sum_received, or { error } — iperf3 puts its own error in the JSON.
export function parseIperf3Json(stdout) {
  let report;
  try {
    report = JSON.parse(stdout);
  } catch {
    const first = String(stdout ?? '').trim().split('\n')[0];
    return { error: first ? `iperf3 printed no JSON report: ${first}` : 'iperf3 printed no report' };
  }
  if (report.error) return { error: String(report.error).replace(/^error - /, '') };
  const sender = pick(report.end?.sum_sent);
  const receiver = pick(report.end?.sum_received);
  if (!sender || !receiver) return { error: 'iperf3 reported no end.sum_sent / end.sum_received totals' };
  return { sender, receiver };
}
