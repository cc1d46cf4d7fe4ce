// @ts-check
import { startProcess } from '../process/processes.js';
import { stderrTails } from '../process/readiness.js';

// What our relay client says its transport negotiated (relay/client.js
// logs it once per kind of connection): a TLS version and suite, and
// whether it verified the certificate. A reference row says nothing.
const TRANSPORT_LINE = /^info: transport: (.+)$/;

// The children of one run of a case (run `index`). start(spec) starts one
// where the run places its role (this host, a link's namespace, a remote
// host: `place`, which may also change how its readiness is read), and
// every child's pid goes to `emit` as a process-started event, with the
// command it was started with: read from /proc at that moment, a command
// line can be empty, the child still inside execve (seen in 7 of 3,000
// spawns with busy loops beside them). track() does the same for a child
// started elsewhere (the traffic client).
export function caseProcesses({ index, place, emit }) {
  const children = [];
  let negotiated = null;
  const track = (role, pid, command) => {
    if (pid !== undefined) emit({ type: 'process-started', index, role, pid, command });
  };
  const onLine = (role) =>
    role === 'relay-client'
      ? (stream, line) => {
          const said = stream === 'stderr' && TRANSPORT_LINE.exec(line);
          if (said) negotiated ??= said[1];
        }
      : undefined;
  const start = (spec) => {
    const { role, label, file, args, readiness, remote = false } = place(spec);
    const child = startProcess(label, file, args, { onLine: onLine(role) });
    children.push(child);
    track(role, child.pid, [file, ...args]);
    return Object.assign(child, { readiness, remote });
  };
  return {
    children,
    start,
    track,
    place,
    // The relays of a plan, each with its child: { ...spec, child }.
    startRelays: (specs) =>
      specs.map((relay) => ({ ...relay, child: start({ ...relay, role: `relay-${relay.role}` }) })),
    negotiated: () => negotiated,
    // Read before the target is stopped (by the latency probe or the
    // teardown), which makes iperf3 -s say "interrupt".
    tails: () => stderrTails(children),
    stopAll: () => Promise.all(children.map((child) => child.stop())),
  };
}
