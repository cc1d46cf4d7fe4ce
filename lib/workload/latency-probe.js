// @ts-check
import { CLI } from '../process/cli-path.js';
import { runCommand } from '../process/processes.js';
import { READY_LINE } from '../process/ready-line.js';
import { firstReason, stderrTails } from '../process/readiness.js';
import { measureLatency } from '../traffic/latency.js';
import { measureUdpRoundTrips } from '../traffic/udp-latency.js';

// --latency, a step after the bulk or UDP workload: with the relays still
// up, the engine's server makes way for an echo target on the same port,
// and the latency probe goes in where the traffic went, through the same
// relay processes the bitrate came from. With `udp`, a UDP echo target
// joins it on the same port number and the figures gain udpRtt, UDP round
// trips through the relays' UDP (on this machine only). `start` starts a
// child where the run places its role. Resolves with { latency } or
// { latencyReason }; { } when the run was interrupted.
export async function probeLatency({ target, start, port, targetHost, entry, link, udp = false, waits, signal }) {
  await target.stop();
  const echoes = [
    start({
      role: 'echo-target',
      label: 'echo target',
      file: process.execPath,
      args: [CLI, 'echo', '--listen', `${targetHost}:${port}`],
    }),
  ];
  if (udp)
    echoes.push(
      start({
        role: 'echo-target',
        label: 'udp echo target',
        file: process.execPath,
        args: [CLI, 'udp-echo', '--listen', `${targetHost}:${port}`],
      }),
    );
  const notReady = await firstReason(echoes.map((child) => child.ready({ stdout: READY_LINE }, waits)));
  if (signal?.aborted) return {};
  if (notReady) return { latencyReason: [notReady, ...stderrTails(echoes)].join('; ') };
  if (link) return probeLatencyAcross(link, `${entry.host}:${entry.port}`);
  try {
    const latency = await measureLatency({ ...entry, signal });
    if (udp) latency.udpRtt = await measureUdpRoundTrips({ ...entry, signal });
    return { latency };
  } catch (error) {
    if (signal?.aborted) return {};
    // measureLatency's own failures are one line saying what happened.
    if (error.exitCode === undefined) throw error;
    return { latencyReason: error.message.replace(/^latency: /, '') };
  }
}

// The probe lives in the client's namespace on a link, so it runs there as
// `cipherbench latency`, which prints what measureLatency() returns.
async function probeLatencyAcross(link, entry) {
  try {
    const { file, args } = link.place({
      role: 'latency-probe',
      file: process.execPath,
      args: [CLI, 'latency', '--connect', entry, '--json'],
    });
    const out = await runCommand(file, args, { timeoutMs: 60_000 });
    return { latency: JSON.parse(out) };
  } catch (error) {
    return { latencyReason: error.stderr?.trim().split('\n').pop() || error.message };
  }
}
