// @ts-check
import { setTimeout as delay } from 'node:timers/promises';
import { planPeer, runsRemotely } from '../peers/index.js';
import { watchMachine } from '../process/machine-watch.js';
import { firstReason } from '../process/readiness.js';
import { caseProfiler } from '../profile/case-profile.js';
import { bulkWorkload } from '../workload/index.js';
import { probeLatency } from '../workload/latency-probe.js';
import { caseProcesses } from './case-processes.js';
import { relayCostMeter } from './relay-cost.js';

// --profile's system call count: seconds of the extra transfer under strace.
const SYSCALL_SECONDS = 2;
// How long a run that measured nothing waits for the run's own stop before
// calling itself failed. A Ctrl-C reaches the whole process group: the
// children may die of it and their deaths be read before this process has
// run its own handler for the same signal (a fresh-clone CI run beside a
// looping benchmark, load 9, recorded the case under way as failed).
const STOP_HEARD_MS = 500;

// One run of a case (docs/result.md, "A run of a case"): the workload's target on the
// target port, the case's relay pair in front of it (ours with its chain,
// or a reference implementation's; none for direct), the workload through
// the pair, then with `settings.latency` the latency probe through the same
// relays, then everything stopped. `identity` is what the case runs
// ({ presets } or a reference row, peers/index.js). `settings` are the
// run's (runner/run-options.js), for this run; `context` is { workload
// (workload/index.js), engine, index, direction, key, found (what
// locatePeer() found), link, remote, profile (a folder) and profileRun,
// signal, emit }. With a `link` (link/namespaces.js) or a `remote` host
// (remote/ssh.js) the server's half runs there, and on a link the run also
// says what the wire carried. Resolves with { status, reason, sender,
// receiver, wallSeconds, cost, ... } and never throws for a fault of the
// case itself; status 'skipped' means `signal` was aborted first.
export async function runCase(identity, settings, context) {
  const started = performance.now();
  const away = context.link ?? context.remote;
  const processes = caseProcesses({
    index: context.index,
    place: away ? away.place : (spec) => spec,
    emit: context.emit,
  });
  const profiler = profilerFor(context);
  let plan = null;
  let outcome;
  let tails;
  let probe = {};
  try {
    const elsewhere = context.remote && !runsRemotely(identity);
    if (elsewhere)
      outcome = {
        reason: `${identity.label} runs from files on this host: its server cannot be started on ${context.remote.destination}`,
      };
    else {
      plan = await planPeer(identity, peerPlacement(settings, context, away));
      outcome = await measureThrough(plan, { identity, processes, profiler, settings, context });
    }
    tails = processes.tails();
    if (context.workload.measured(outcome) && settings.latency) {
      const { link, signal } = context;
      const udp = settings.udp && !away;
      probe = await probeLatency({
        ...outcome.listening,
        start: processes.start,
        port: settings.ports.target,
        link,
        udp,
        signal,
      });
    }
  } finally {
    await processes.stopAll();
    await plan?.cleanup?.();
  }
  const wallSeconds = (performance.now() - started) / 1000;
  return runResult(outcome, { wallSeconds, tails, probe, profiler, processes, settings, context });
}

// --profile's step for this run, or null without --profile.
function profilerFor({ profile, index, direction, profileRun, link, remote }) {
  if (!profile) return null;
  return caseProfiler({ dir: profile, name: `case-${index}-${direction}-run-${profileRun + 1}`, link, remote });
}

// Where planPeer() puts the case's two halves: this host, or the server's
// half across a link or on a remote host.
function peerPlacement(settings, context, away) {
  const { ports, udp } = settings;
  return {
    ports,
    key: context.key,
    found: context.found ?? {},
    serverHost: away?.serverAddress,
    serverBind: away?.serverBind,
    udp,
  };
}

// The run as docs/result.md gives it: skipped when the signal came first,
// failed (with what the children said last) when nothing was measured,
// else ok with the workload's figures and every step's.
async function runResult(outcome, { wallSeconds, tails, probe, profiler, processes, settings, context }) {
  const none = { sender: null, receiver: null, wallSeconds, cost: null };
  // The timer rejects when the signal aborts, which is what it waits for.
  if (!context.workload.measured(outcome) && context.signal && !context.signal.aborted)
    await delay(STOP_HEARD_MS, null, { signal: context.signal }).catch(() => {});
  if (context.signal?.aborted) return { status: 'skipped', reason: 'run interrupted', ...none };
  if (!context.workload.measured(outcome))
    return { status: 'failed', reason: [outcome.reason, ...tails].join('\n'), ...none };
  // The profiles are written as the relays exit, so they are read last.
  const profile = await profiler?.outcome();
  return {
    status: 'ok',
    reason: null,
    ...none,
    cost: outcome.cost,
    negotiated: processes.negotiated(),
    ...context.workload.result(outcome, settings),
    disturbance: outcome.disturbance,
    ...(outcome.wire ? { wire: outcome.wire } : {}),
    ...probe,
    ...(profile ? { profile } : {}),
  };
}

// One measurement through a planned relay pair. The target and the relays
// start together: they do not touch each other until a connection arrives,
// so the slowest start sets the wait. The workload then runs through the
// pair's entry, watched for how busy the machine was, what the relays
// spent and, on a link, what crossed the wire.
async function measureThrough(plan, { identity, processes, profiler, settings, context }) {
  const { workload, engine, link, remote, signal } = context;
  // Away, the target listens on every address of the server's host: the
  // relay server reaches it on loopback, direct across the link.
  const targetHost = (link ?? remote) ? '0.0.0.0' : '127.0.0.1';
  const target = processes.start(workload.target({ engine, port: settings.ports.target, host: targetHost, settings }));
  const relays = processes.startRelays(profiler ? await profiler.relaySpecs(plan.relays) : plan.relays);
  const waits = { timeoutMs: settings.readyTimeout * 1000, signal };
  const notReady = await firstReason(
    [target, ...relays.map((relay) => relay.child)].map((child) => child.ready(child.readiness, waits)),
  );
  if (notReady) return { reason: notReady };
  const cost = relayCostMeter(relays);
  await cost.mark();
  await profiler?.listening(relays);
  let wireBefore = await link?.wireBytes();
  const disturbance = await watchMachine();
  const entry = { host: plan.entryHost ?? '127.0.0.1', port: plan.entryPort };
  const measuring = {
    engine,
    identity,
    entry,
    target: { host: '127.0.0.1', port: settings.ports.target },
    settings,
    direction: context.direction,
    signal,
    track: processes.track,
    listeners: processes.children,
    place: processes.place,
    // The warm-up's CPU and bytes on the wire are not the measured ones.
    onMeasuring: async () => {
      await cost.mark();
      wireBefore = await link?.wireBytes();
    },
  };
  const { engineCpu, ...measured } = await workload.measure(measuring);
  const didMeasure = workload.measured(measured);
  if (didMeasure) measured.disturbance = await disturbance(engineCpu);
  if (link && measured.receiver)
    measured.wire = wireCost((await link.wireBytes()) - wireBefore, measured.receiver.bytes);
  // Read before the latency probe: the cost is that of the transfer.
  if (didMeasure) measured.cost = await cost.read();
  await profiler?.measured({
    measured,
    waits,
    signal,
    restart: async () => {
      await Promise.all(relays.map((relay) => relay.child.stop()));
      return processes.startRelays(plan.relays);
    },
    transfer: (listeners) =>
      bulkWorkload.measure({
        ...measuring,
        settings: { ...settings, duration: Math.min(settings.duration, SYSCALL_SECONDS), rate: null },
        listeners: [target, ...listeners],
      }),
  });
  return { ...measured, listening: { target, targetHost, entry, waits } };
}

// What crossed the link, both ways, for the payload that arrived: headers,
// acks, the chain's own framing, retransmissions and the engine's control
// connection, as a share of the payload.
function wireCost(bytes, payloadBytes) {
  return { bytes, payloadBytes: payloadBytes, overhead: payloadBytes > 0 ? bytes / payloadBytes - 1 : null };
}
