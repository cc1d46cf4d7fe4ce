import { requireProgram } from '../process/programs.js';
import { UDP_RECEIVE_BUFFER } from './udp-datagrams.js';

const INSTALL_HINT = 'install it with `sudo apt-get install iperf3` (Debian/Ubuntu) or `brew install iperf3` (macOS)';

// The iperf3 to run: the path given, else the first on PATH.
export const findIperf3 = ({ iperf3Path, env = process.env } = {}) =>
  requireProgram('iperf3', { givenPath: iperf3Path, env, hint: INSTALL_HINT, otherwise: 'run with --engine node' });

// --forceflush makes 'Server listening' arrive when it is printed, not when
// a pipe buffer fills; -B keeps the target on loopback (on a link, on every
// address of the server's own namespace, where `direct` reaches it).
export const iperf3ServerArgs = (port, host = '127.0.0.1') => ['-s', '-p', String(port), '-B', host, '--forceflush'];
export const IPERF3_SERVER_READY = /Server listening on/;

// reverse (-R): iperf3 -s sends and iperf3 -c receives, so the data runs
// through the other half of each preset (server encode, client decode).
// end.sum_sent and end.sum_received still name the sending and receiving side.
// iperf3 -b limits each stream on its own: a TCP rate for all of them is
// split. udp: { rate, length }: -u at `rate` bits/s in datagrams of
// `length` bytes, with the socket buffers the built-in sink takes (-w).
export function iperf3ClientArgs({
  host = '127.0.0.1',
  port,
  duration,
  parallel,
  reverse = false,
  rate = null,
  udp = null,
}) {
  const args = ['-c', host, '-p', String(port), '-t', String(duration), '-J'];
  if (udp) args.push('-u', '-b', String(udp.rate), '-l', String(udp.length), '-w', String(UDP_RECEIVE_BUFFER));
  if (parallel > 1) args.push('-P', String(parallel));
  if (rate !== null && !udp) args.push('-b', String(Math.round(rate / (parallel ?? 1))));
  if (reverse) args.push('-R');
  return args;
}

const pick = (sum) =>
  sum && typeof sum.bytes === 'number'
    ? { bytes: sum.bytes, seconds: sum.seconds, bits_per_second: sum.bits_per_second }
    : null;

// What a UDP test adds: the rate offered, the datagrams sent (end.sum_sent)
// and those that arrived, the receiver's jitter (RFC 3550's smoothed
// estimate) and out-of-order count (summed over the streams: iperf3 puts no
// total in its end sums). Loss is counted against what was sent, not taken
// from iperf3's receiver, which counts only gaps before the last datagram
// that arrived: a relay slower than the offered rate queues in its socket's
// buffer, delivers an unbroken prefix by the end of the test and drops the
// rest, and iperf3 then reports 0% lost of a tenth delivered.
function udpFigures(report) {
  const sent = report.end?.sum_sent;
  const received = report.end?.sum_received;
  if (
    report.start?.test_start?.protocol !== 'UDP' ||
    typeof sent?.packets !== 'number' ||
    typeof received?.packets !== 'number'
  )
    return null;
  const arrived = received.packets - received.lost_packets;
  const lost = Math.max(0, sent.packets - arrived);
  const outOfOrder = (report.end.streams ?? []).reduce((sum, stream) => sum + (stream.udp?.out_of_order ?? 0), 0);
  return {
    offeredBps: report.start.test_start.target_bitrate ?? null,
    length: report.start.test_start.blksize ?? null,
    packets: sent.packets,
    lost_packets: lost,
    lost_percent: sent.packets > 0 ? (100 * lost) / sent.packets : 0,
    jitter_ms: received.jitter_ms,
    out_of_order: outOfOrder,
  };
}

// Reads iperf3 -J output: { sender, receiver } from end.sum_sent and
// end.sum_received (and { udp } for a UDP test), or { error } — iperf3 puts
// its own error in the JSON.
export function parseIperf3Json(stdout) {
  let report;
  try {
    report = JSON.parse(stdout);
  } catch {
    const first = String(stdout ?? '')
      .trim()
      .split('\n')[0];
    return { error: first ? `iperf3 printed no JSON report: ${first}` : 'iperf3 printed no report' };
  }
  if (report.error) return { error: String(report.error).replace(/^error - /, '') };
  const sender = pick(report.end?.sum_sent);
  const receiver = pick(report.end?.sum_received);
  if (!sender || !receiver) return { error: 'iperf3 reported no end.sum_sent / end.sum_received totals' };
  const udp = udpFigures(report);
  return { sender, receiver, ...(udp ? { udp } : {}), ...engineCpu(report.end.cpu_utilization_percent) };
}

// iperf3's own share of a core at each end (host: the client, remote: the
// server), in percent; only iperf3 reports it.
function engineCpu(cpu) {
  if (!cpu || typeof cpu.host_total !== 'number' || typeof cpu.remote_total !== 'number') return {};
  return { engineCpu: { client: cpu.host_total, server: cpu.remote_total } };
}
