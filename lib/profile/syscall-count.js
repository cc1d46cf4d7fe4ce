import { readFile, rm } from 'node:fs/promises';
import { startProcess } from '../process/processes.js';
import { findProgram } from '../process/programs.js';

// --profile, where strace is installed: how many read and write system
// calls our relays make per GB carried, and how many bytes each moves on
// average, as `strace -c -f` counts them. ptrace stops the relay at every
// one of those calls, so the count is taken over a short extra transfer of
// its own after the measured one, whose bitrate is not kept.

const READS = ['read', 'readv', 'recvfrom', 'recvmsg'];
const WRITES = ['write', 'writev', 'sendto', 'sendmsg'];
const ATTACH_TIMEOUT_MS = 10_000;

// Whether strace can be used here: null, or why not.
export async function straceUnavailable() {
  return (await findProgram('strace'))
    ? null
    : 'strace is not installed (apt-get install strace): no system call counts';
}

// Attaches strace to each relay (`relays`: [{ role, child }]), runs
// transfer() (which resolves with what measure() does), stops strace and
// resolves with { seconds, bytes, client: { reads, writes, readsPerGB,
// writesPerGB, bytesPerRead, bytesPerWrite }, server: ... } or { reason }.
export async function countSyscalls(relays, { transfer, outputFile, signal }) {
  const tracers = relays.map(({ role, child }) => {
    const file = `${outputFile}-${role}.strace`;
    const tracer = startProcess(`strace of relay ${role}`, 'strace', [
      '-c',
      '-f',
      '-e',
      `trace=${[...READS, ...WRITES].join(',')}`,
      '-o',
      file,
      '-p',
      String(child.pid),
    ]);
    return { role, file, tracer };
  });
  try {
    const notAttached = (
      await Promise.all(
        tracers.map(({ tracer }) => tracer.ready({ stderr: /attached/ }, { timeoutMs: ATTACH_TIMEOUT_MS, signal })),
      )
    ).find(Boolean);
    if (notAttached)
      return {
        reason: `strace could not attach: ${notAttached}${tracers
          .flatMap(({ tracer }) => tracer.stderrTail())
          .slice(-1)
          .map((line) => `: ${line}`)
          .join('')}`,
      };
    const started = performance.now();
    const measured = await transfer();
    const seconds = (performance.now() - started) / 1000;
    // strace writes its table as it detaches, on SIGTERM.
    await Promise.all(tracers.map(({ tracer }) => tracer.stop()));
    if (!measured.receiver) return { reason: `the transfer under strace failed: ${measured.reason?.split('\n')[0]}` };
    const bytes = measured.receiver.bytes;
    const counts = {};
    for (const { role, file } of tracers)
      counts[role] = perGigabyte(parseStraceSummary(await readFile(file, 'utf8')), bytes);
    return { seconds, bytes, ...counts };
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
    return { reason: `strace wrote no table: ${error.message}` };
  } finally {
    await Promise.all(
      tracers.map(async ({ tracer, file }) => {
        await tracer.stop();
        await rm(file, { force: true });
      }),
    );
  }
}

// `strace -c`'s table, as { syscall: calls }.
export function parseStraceSummary(text) {
  const calls = {};
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors], syscall
    if (fields.length < 5 || !/^[\d.]+$/.test(fields[0]) || fields.at(-1) === 'total') continue;
    calls[fields.at(-1)] = Number(fields[3]);
  }
  return calls;
}

function perGigabyte(calls, bytes) {
  const sum = (names) => names.reduce((total, name) => total + (calls[name] ?? 0), 0);
  const [reads, writes] = [sum(READS), sum(WRITES)];
  const gigabytes = bytes / 1e9;
  return {
    reads,
    writes,
    readsPerGB: reads / gigabytes,
    writesPerGB: writes / gigabytes,
    // The payload passes through a relay once each way: read once, written once.
    bytesPerRead: reads > 0 ? bytes / reads : null,
    bytesPerWrite: writes > 0 ? bytes / writes : null,
  };
}
