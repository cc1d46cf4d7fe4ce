import { mkdir, stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';
import { runCommand, startProcess } from '../process/processes.js';
import { findProgram } from '../process/programs.js';

// --profile for a reference row: its relays are other programs (C, Rust,
// Go, Python), which V8's profiler cannot see, so `perf record` samples them
// during the measured transfer where perf is installed and allowed; the
// perf.data files stay beside the CPU profiles, and each relay's busiest
// functions (perf report, self time) go in the report as ours do.

// cpu-clock, a software event: a virtual machine often has no hardware
// counter for perf's default (cycles), and records nothing.
const SAMPLE_HZ = 999;
const TOP_FUNCTIONS = 6;
const ATTACH_TIMEOUT_MS = 10_000;
const ATTACH_POLL_MS = 25;

// Starts perf on each relay ([{ role, child }]); resolves with { files,
// stop() } or { reason } when perf cannot run here.
export async function startPerf(relays, { dir, name }) {
  if (!(await findProgram('perf')))
    return { reason: 'perf is not installed (Debian: apt-get install linux-perf): reference rows are not profiled' };
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    return { reason: `cannot write the perf data to ${dir}: ${error.message}` };
  }
  const files = {};
  const recorders = relays.map(({ role, child }) => {
    files[role] = path.join(dir, `${name}-relay-${role}.perf.data`);
    return startProcess(`perf record of relay ${role}`, 'perf', [
      'record',
      '-e',
      'cpu-clock',
      '-F',
      String(SAMPLE_HZ),
      '-g',
      '--no-buildid',
      '-q',
      '-o',
      files[role],
      '-p',
      String(child.pid),
    ]);
  });
  // --no-buildid: collecting build IDs as perf stops took over the second
  // a stopped child is given before SIGKILL on a busy machine, and the
  // file was cut short; perf report reads the binaries where they are.
  // perf takes a while to start on a busy machine (over two seconds were
  // seen): it has attached once it has written its file's header.
  await Promise.all(Object.values(files).map((file, at) => attached(file, recorders[at])));
  return {
    files,
    // perf writes its file as it stops; what it said when it could not
    // record (perf_event_paranoid, no PMU in a VM) is the reason.
    async stop() {
      await Promise.all(recorders.map((recorder) => recorder.stop()));
      const said = recorders.flatMap((recorder) => recorder.stderrTail());
      return said.length > 0 && recorders.some((recorder) => recorder.exit?.code) ? said.at(-1) : null;
    },
  };
}

// { files, top: { client: [{ function, where, selfShare }], ... }, reason }.
export async function readPerf(files, stopReason) {
  const top = {};
  const problems = stopReason ? [stopReason] : [];
  for (const [role, file] of Object.entries(files)) {
    try {
      const rows = parsePerfReport(
        await runCommand(
          'perf',
          ['report', '-i', file, '--stdio', '--no-children', '--sort', 'dso,symbol', '-q', '--percent-limit', '0.5'],
          { timeoutMs: 60_000 },
        ),
      );
      if (rows.length > 0) top[role] = rows;
      else problems.push(`relay ${role}: perf recorded no samples`);
    } catch (error) {
      problems.push(`relay ${role}: perf report: ${error.message.split('\n').at(-1)}`);
    }
  }
  return { files, top, reason: problems.length > 0 ? problems.join('; ') : null };
}

// '    12.34%  libcrypto.so.3   [.] aesni_gcm_encrypt' lines, callers
// (indented call-graph lines) left out.
export function parsePerfReport(text) {
  const rows = [];
  for (const line of text.split('\n')) {
    const match = /^\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.+?)\s*$/.exec(line);
    // With -g, perf pads the symbol with empty columns: '-      -'.
    if (match) rows.push({ function: match[3].split(/\s{2,}/)[0], where: match[2], selfShare: Number(match[1]) / 100 });
  }
  return rows.sort((a, b) => b.selfShare - a.selfShare).slice(0, TOP_FUNCTIONS);
}

async function attached(file, recorder) {
  const deadline = Date.now() + ATTACH_TIMEOUT_MS;
  while (Date.now() < deadline && recorder.exit === null) {
    try {
      if ((await stat(file)).size > 0) return;
    } catch {
      // Not created yet.
    }
    await delay(ATTACH_POLL_MS);
  }
}
