import { availableParallelism } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { startTrafficClient } from '../traffic/engine.js';
import { parseIperf3Json } from '../traffic/iperf3.js';
import { measureLatency } from '../traffic/latency.js';
import { inboundOf } from '../traffic/request-engine.js';
import { measureUdpRoundTrips } from '../traffic/udp-latency.js';
import { planPeer, runsRemotely } from '../peers/index.js';
import { costBetween, readProcessCost } from '../process/process-cost.js';
import { cpuSharesBetween, readCpuTimes, readLoadAverage } from '../process/machine-load.js';
import { describeExit, runCommand, startProcess, tellingLines } from '../process/processes.js';
import { CLI } from '../process/cli-path.js';
import { READY_LINE } from '../process/ready-line.js';
import { profiledRelays, readProfiles } from '../profile/cpu-profile.js';
import { countSyscalls, straceUnavailable } from '../profile/syscall-count.js';
import { readPerf, startPerf } from '../profile/perf-record.js';
// After a relay dies mid-test the engine's client usually reports the
// broken connection at once; past this it is stopped so a stuck one cannot
// hold up the run.
const CLIENT_GRACE_MS = 2000;
// A traffic client that failed may have failed because a relay died under
// it: the kernel resets the client's connection at once, but the relay's
// exit can reach this process's event loop after the client's (seen at
// load 8 on 2 cores), so a failure waits this long for one to be told of.
const EXIT_NEWS_MS = 1000;
// --profile's system call count: seconds of the extra transfer under strace.
const SYSCALL_SECONDS = 2;
// What our relay client says its transport negotiated (relay/client.js
// logs it once per kind of connection): a TLS version and suite, and
// whether it verified the certificate. A reference row says nothing.
const TRANSPORT_LINE = /^info: transport: (.+)$/;

// One run of a case: the engine's server (iperf3 -s or the sink) on the
// target port, the case's relay pair in front of it (ours with its chain,
// or a reference implementation's; none for direct), the engine's client
// through the pair for `duration` seconds (reversed when `direction` is
// 'reverse'), then, with `latency`, the latency probe through the same
// relays, then everything stopped. `identity` is what the case runs
// ({ presets } or a reference row, peers/index.js) and `found` what
// locatePeer() found for it. Resolves with { status, reason, sender,
// receiver, wallSeconds, cost } plus { latency } or { latencyReason } when
// the probe ran, and never throws for a fault of the case itself; status
// 'skipped' means `signal` was aborted before the run could finish. With a
// `link` (link/namespaces.js) the server's half runs on the far side of it
// and the client's half on the near side, and the run also says what the
// link carried: { wire: { bytes, overhead } }. With a `remote` host
// (remote/ssh.js) the server's half runs there over SSH.
// With `profile` (a folder, and `profileRun`, the run's repeat), our relays run under V8's CPU
// profiler (cpu-profile.js) and the run says { profile: { files, top,
// reason } }, or { profile: { reason } } when the case could not be.
// With `rate` (bits/s) the engine offers that rate and the run says
// whether it fell short (saturated); with `udp` that rate is iperf3 -u's,
// in datagrams of `length` bytes. With `requests` the engine is the
// request workload against a built-in HTTP target (traffic/requests.js).
export async function runCase(identity, {
  index, direction = 'forward', ports, duration, parallel, rate = null, readyTimeout, latency = false, requests = false, concurrency, responseSize, newConnections, warmup = 0,
  udp = false, length = null, engine, key, found = {}, link = null, remote = null, profile = null, profileRun = 0, signal, emit,
}) {
  const away = link ?? remote;
  const place = away ? away.place : (spec) => spec;
  const started = performance.now();
  const children = [];
  // Every child's pid goes to the observer, so a caller can watch or check
  // them, with the command it was started with: read from /proc at this
  // moment, a command line can be empty, the child still inside execve
  // (seen in 7 of 3,000 spawns with busy loops beside them).
  const track = (role, pid, command) => {
    if (pid !== undefined) emit({ type: 'process-started', index, role, pid, command });
  };
  // The listeners do not touch each other until a connection arrives, so
  // they start together and the slowest start sets the wait. Each starts
  // where the run places its role (this host, a link's namespace, a
  // remote host), which may change how its readiness is read.
  let transport = null;
  const onLine = (role) => (role === 'relay-client' ? (stream, line) => {
    const said = stream === 'stderr' && TRANSPORT_LINE.exec(line);
    if (said) transport ??= said[1];
  } : undefined);
  const start = (spec) => {
    const { role, label, file, args, readiness, remote: isRemote = false } = place(spec);
    const child = startProcess(label, file, args, { onLine: onLine(role) });
    children.push(child);
    track(role, child.pid, [file, ...args]);
    return Object.assign(child, { readiness, remote: isRemote });
  };
  const startAndMeasure = async (planned) => {
    // Away, the target listens on every address of the server's host: the
    // relay server reaches it on loopback, direct across the link.
    const targetHost = away ? '0.0.0.0' : '127.0.0.1';
    const target = start(requests ? httpTargetSpec(ports.target, targetHost, responseSize) : engine.server(ports.target, targetHost));
    profiling = profile ? await profiledRelays(planned.relays, { dir: profile, name: `case-${index}-${direction}-run-${profileRun + 1}`, remote: Boolean(remote) }) : null;
    const relays = (profiling?.specs ?? planned.relays).map((relay) => ({ ...relay, child: start({ ...relay, role: `relay-${relay.role}` }) }));

    const waits = { timeoutMs: readyTimeout * 1000, signal };
    const notReady = await firstReason([target, ...relays.map((relay) => relay.child)].map((child) => child.ready(child.readiness, waits)));
    if (notReady) return { reason: notReady };
    // What starting a relay and loading its code cost is left out: its
    // CPU is counted from here, when every process listens, so the
    // figure per GB does not depend on how long a run lasts.
    let atReady = await readRelayCosts(relays);
    // A reference row's relays are other programs: perf samples them instead.
    if (profiling?.reference && !away) perf = await startPerf(relays, { dir: profile, name: profiling.name });
    const reverse = direction === 'reverse';
    const wireBefore = await link?.wireBytes();
    const [loadAverage, cpuBefore] = await Promise.all([readLoadAverage(), readCpuTimes()]);
    const datagrams = udp ? { rate, length } : null;
    const { engineCpu, ...measured } = requests
      ? await measureRequestLoad({
        engine, identity, host: planned.entryHost, port: planned.entryPort, target: { host: '127.0.0.1', port: ports.target }, duration, warmup, concurrency, newConnections, signal, track,
        // The warm-up's CPU is not the measured requests'.
        onMeasuring: () => readRelayCosts(relays).then((costs) => { atReady = costs; }),
      })
      : await measure({ engine, host: planned.entryHost, port: planned.entryPort, duration, parallel, rate: udp ? null : rate, reverse, udp: datagrams, signal, track, listeners: children, place });
    if (measured.receiver || measured.requests) measured.disturbance = disturbance(loadAverage, cpuSharesBetween(cpuBefore, await readCpuTimes()), engineCpu);
    if (link && measured.receiver) measured.wire = wireCost((await link.wireBytes()) - wireBefore, measured.receiver.bytes);
    // Read before the latency probe: the cost is that of the transfer.
    if (measured.sender || measured.requests) cost = relayCost(atReady, await readRelayCosts(relays));
    if (perf?.stop) perfStopReason = await perf.stop();
    if (measured.sender && profiling?.files) {
      syscalls = link ? { reason: 'not counted across a --link: strace would run outside the relays\' namespaces' } : await straceUnavailable().then((reason) => reason && { reason });
      syscalls ??= await countOnFreshRelays({ relays, planned, start, waits, outputFile: profiling.files.client.replace(/-relay-client\.cpuprofile$/, ''), signal, transfer: (listeners) => measure({ engine, host: planned.entryHost, port: planned.entryPort, duration: Math.min(duration, SYSCALL_SECONDS), parallel, reverse, signal, track, listeners: [target, ...listeners], place }) });
    }
    return { ...measured, target, targetHost, waits };
  };
  let outcome;
  let tails = [];
  let cost = null;
  let probe = {};
  let plan = null;
  let profiling = null;
  let syscalls = null;
  let perf = null;
  let perfStopReason = null;
  try {
    if (remote && !runsRemotely(identity)) {
      outcome = { reason: `${identity.label} runs from files on this host: its server cannot be started on ${remote.destination}` };
    } else {
      plan = await planPeer(identity, { ports, key, found, serverHost: away?.serverAddress, serverBind: away?.serverBind, udp });
      outcome = await startAndMeasure(plan);
    }
    // Read before the target is stopped (by the probe or the teardown),
    // which makes iperf3 -s say "interrupt".
    tails = stderrTails(children);
    if (outcome.sender && latency) probe = await probeLatency({ target: outcome.target, start, ports, targetHost: outcome.targetHost, entryHost: plan.entryHost, entryPort: plan.entryPort, link, udp: udp && !away, waits: outcome.waits, signal });
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await plan?.cleanup?.();
  }
  const wallSeconds = (performance.now() - started) / 1000;
  if (signal?.aborted) return { status: 'skipped', reason: 'run interrupted', sender: null, receiver: null, wallSeconds, cost: null };
  // The profiles are written as the relays exit, so they are read last.
  const profiled = !profiling ? {} : { profile: await profileOutcome(profiling, { perf, perfStopReason, syscalls, away }) };
  if (outcome.requests) {
    return { status: 'ok', reason: null, sender: null, receiver: null, wallSeconds, cost, transport, requests: outcome.requests, disturbance: outcome.disturbance, ...profiled };
  }
  if (outcome.sender) {
    return {
      status: 'ok',
      reason: null,
      sender: outcome.sender,
      receiver: outcome.receiver,
      wallSeconds,
      cost,
      transport,
      disturbance: outcome.disturbance,
      ...(udp ? {} : saturation(rate, outcome)),
      ...(outcome.udp ? { udp: outcome.udp } : {}),
      ...(outcome.wire ? { wire: outcome.wire } : {}),
      ...probe,
      ...profiled,
    };
  }
  return { status: 'failed', reason: [outcome.reason, ...tails].join('\n'), sender: null, receiver: null, wallSeconds, cost: null };
}

// What --profile gives a run: our relays' CPU profiles and system call
// counts, a reference row's perf samples, or why there are none.
async function profileOutcome(profiling, { perf, perfStopReason, syscalls, away }) {
  if (profiling.files) return { ...(await readProfiles(profiling.files)), syscalls };
  if (perf?.files) return { ...(await readPerf(perf.files, perfStopReason)), syscalls: null };
  const reason = perf?.reason ?? (profiling.reference && away ? 'perf runs on this host only: the relay server is not here' : profiling.reason);
  return { files: null, top: null, reason, syscalls: null };
}

// --profile's system call count, on a relay pair of its own: the profiled
// pair stops first (writing its CPU profiles), so strace's stops at every
// call neither slow the measured transfer nor show in the CPU profile.
async function countOnFreshRelays({ relays, planned, start, waits, outputFile, signal, transfer }) {
  await Promise.all(relays.map((relay) => relay.child.stop()));
  const fresh = planned.relays.map((relay) => ({ ...relay, child: start({ ...relay, role: `relay-${relay.role}` }) }));
  const notReady = await firstReason(fresh.map((relay) => relay.child.ready(relay.child.readiness, waits)));
  if (notReady) return { reason: `the relays for the count did not start: ${notReady}` };
  return countSyscalls(fresh, { transfer: () => transfer(fresh.map((relay) => relay.child)), outputFile, signal });
}

// What else the machine did during the transfer: the one-minute load
// average just before it, the shares of all cores' time left idle and
// stolen by the hypervisor over it (null without /proc), and iperf3's own
// CPU share as iperf3 -J reports it for each end (null for the built-in
// engine, which does not measure itself).
function disturbance(loadAverage, shares, engineCpu) {
  return { loadAverage, idle: shares?.idle ?? null, steal: shares?.steal ?? null, engineCpu: engineCpu ?? null };
}

// At a fixed offered rate, a run whose receiver got less than
// SATURATED_SHARE of it did not keep up: its cost is that of a relay at
// its limit, not at the rate asked, so the cost figures leave it out. What
// it got is the bytes received over the sender's seconds: the receiver's
// own seconds also count the last bytes' way through the relays (2-3 %
// of a 2 s run here), which would call a run that kept up saturated.
const SATURATED_SHARE = 0.97;
function saturation(rate, { sender, receiver }) {
  return rate === null ? {} : { saturated: (receiver.bytes * 8) / sender.seconds < SATURATED_SHARE * rate };
}

// With the relays still up, the engine's server makes way for an echo
// target on the same port, and the latency probe goes in where the traffic
// went: the same relay processes the bitrate came from. With `udp`, a UDP
// echo target joins it on the same port number and the figures gain
// udp_rtt, UDP round trips through the relays' UDP (on this machine only).
// Resolves with { latency } or { latencyReason }; { } when the run was
// interrupted.
async function probeLatency({ target, start, ports, targetHost, entryHost = '127.0.0.1', entryPort, link, udp = false, waits, signal }) {
  await target.stop();
  const echo = start({ role: 'echo-target', label: 'echo target', file: process.execPath, args: [CLI, 'echo', '--listen', `${targetHost}:${ports.target}`] });
  const echoes = [echo];
  if (udp) echoes.push(start({ role: 'echo-target', label: 'udp echo target', file: process.execPath, args: [CLI, 'udp-echo', '--listen', `${targetHost}:${ports.target}`] }));
  const notReady = await firstReason(echoes.map((child) => child.ready({ stdout: READY_LINE }, waits)));
  if (signal?.aborted) return {};
  if (notReady) return { latencyReason: [notReady, ...stderrTails(echoes)].join('; ') };
  if (link) return probeLatencyAcross(link, `${entryHost}:${entryPort}`);
  try {
    const latency = await measureLatency({ host: entryHost, port: entryPort, signal });
    if (udp) latency.udp_rtt = await measureUdpRoundTrips({ host: entryHost, port: entryPort, signal });
    return { latency };
  } catch (error) {
    if (signal?.aborted) return {};
    // measureLatency's own failures are one line saying what happened.
    if (error.exitCode === undefined) throw error;
    return { latencyReason: error.message.replace(/^latency: /, '') };
  }
}

// The HTTP target of the request workload, on the port the engine's server
// takes otherwise.
const httpTargetSpec = (port, host, responseSize) => ({
  role: 'http-target',
  label: 'cipherbench http-target',
  file: process.execPath,
  args: [CLI, 'http-target', '--listen', `${host}:${port}`, '--response-size', String(responseSize)],
  readiness: { stdout: READY_LINE },
});

// The request workload through the case's entry, by the run's request
// engine (traffic/request-engine.js): its clients reach the target the way
// the case's inbound says (direct and rows without one: a tunnel). A run
// with no request answered failed, saying how they failed. The figures
// gain what the load generator cost over the counted seconds, as CPU
// seconds and as a share of the machine's cores, which it took from the
// relays it measured (docs/requests.md, "What the load generator took").
async function measureRequestLoad({ engine, identity, host = '127.0.0.1', port, target, duration, warmup, concurrency, newConnections, signal, onMeasuring, track }) {
  const { generatorCpuSeconds, ...figures } = await engine.measure({
    host, port, kind: inboundOf(identity), target, concurrency, durationSeconds: duration, warmupSeconds: warmup, newConnections, signal, onMeasuring, track,
  });
  if (signal?.aborted) return { reason: 'run interrupted' };
  if (figures.reason) return { reason: figures.reason };
  if (figures.ok === 0) {
    const failures = Object.entries(figures.errors).filter(([, count]) => count > 0).map(([kind, count]) => `${count} ${kind}`);
    return { reason: `no request was answered (${failures.join(', ') || 'none sent'})` };
  }
  return { requests: { ...figures, generator: generatorCost(engine.name, generatorCpuSeconds, figures.seconds) } };
}

// What the load generator spent while it counted: CPU seconds, and their
// share of every core's time over those seconds; null when not read.
function generatorCost(name, cpuSeconds, seconds) {
  if (cpuSeconds === null || cpuSeconds === undefined) return { engine: name, cpuSeconds: null, share: null };
  return { engine: name, cpuSeconds, share: cpuSeconds / (seconds * availableParallelism()) };
}

// { client, server } as the relays cost so far; null for a case without
// relays (direct), which has no relay cost to report.
async function readRelayCosts(relays) {
  // A remote relay's pid here is its ssh's: its cost is not this host's to read.
  if (relays.length === 0 || relays.some((relay) => relay.child.remote)) return null;
  const costs = await Promise.all(relays.map((relay) => readProcessCost(relay.child.pid)));
  return Object.fromEntries(relays.map((relay, at) => [relay.role, costs[at]]));
}

// Both relays or neither: half a cost would read as a cheap relay.
function relayCost(before, after) {
  if (!before || !after) return null;
  const client = costBetween(before.client, after.client);
  const server = costBetween(before.server, after.server);
  return client && server ? { client, server } : null;
}

async function measure({ engine, host, port, duration, parallel, rate, reverse, udp, signal, track, listeners, place }) {
  // Generous: the receiver drains the relays' buffers after the duration.
  const timeoutMs = (duration * 2 + 10) * 1000;
  const measuring = startTrafficClient(engine, { host, port, duration, parallel, reverse, rate, udp }, { signal, timeoutMs, place });
  track(measuring.role, measuring.pid, measuring.command);
  const died = Promise.race(listeners.map((child) => child.exited.then(() => child)));
  let dead = null;
  let result = await Promise.race([measuring.result, died.then((child) => {
    dead = child;
    return null;
  })]);
  if (!result) {
    result = await Promise.race([measuring.result, delay(CLIENT_GRACE_MS).then(() => null)]);
    if (!result) {
      measuring.kill();
      result = await measuring.result;
    }
  }
  // Both engines print iperf3 -J's shape, errors included.
  const report = result.timedOut ? null : parseIperf3Json(result.stdout);
  if (!dead && (result.timedOut || report.error)) dead = await Promise.race([died, delay(EXIT_NEWS_MS).then(() => null)]);
  const deathNote = dead ? `${dead.label} ${describeExit(dead.exit)} during the test` : null;
  if (result.timedOut) return { reason: `${measuring.label} did not finish within ${timeoutMs / 1000} s${deathNote ? `; ${deathNote}` : ''}` };
  if (report.error) {
    const stderr = String(result.stderr ?? '').trim().split('\n');
    const detail = result.stdout ? report.error : stderr[0] || describeExit({ code: result.exitCode, signal: result.signal });
    // The client's own last words under the one line, as the listeners' are.
    const tail = tellingLines(result.stdout ? stderr : stderr.slice(1)).map((line) => `${measuring.label}: ${line}`);
    return { reason: [[`${engine.errorPrefix}${detail}`, deathNote].filter(Boolean).join('; '), ...tail].join('\n') };
  }
  return report;
}

// The first failure among readiness waits, as soon as it happens, or null
// once every wait has succeeded.
function firstReason(waits) {
  return new Promise((resolve) => {
    let pending = waits.length;
    for (const wait of waits) {
      wait.then((reason) => {
        if (reason) resolve(reason);
        else if (--pending === 0) resolve(null);
      });
    }
  });
}

// The last stderr lines of each child that said anything: under a failure's
// one line, a relay's own words are usually the real cause.
function stderrTails(children) {
  return children.flatMap((child) => child.stderrTail().filter(Boolean).map((line) => `${child.label}: ${line}`));
}

// The probe lives in the client's namespace on a link, so it runs there as
// `cipherbench latency`, which prints what measureLatency() returns.
async function probeLatencyAcross(link, entry) {
  try {
    const { file, args } = link.place({ role: 'latency-probe', file: process.execPath, args: [CLI, 'latency', '--connect', entry, '--json'] });
    const out = await runCommand(file, args, { timeoutMs: 60_000 });
    return { latency: JSON.parse(out) };
  } catch (error) {
    return { latencyReason: error.stderr?.trim().split('\n').pop() || error.message };
  }
}

// What crossed the link, both ways, for the payload that arrived: headers,
// acks, the chain's own framing, retransmissions and the engine's control
// connection, as a share of the payload.
function wireCost(bytes, payloadBytes) {
  return { bytes, payload_bytes: payloadBytes, overhead: payloadBytes > 0 ? bytes / payloadBytes - 1 : null };
}
