import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LEGACY_FLAG } from '../crypto/legacy-provider.js';
import { chainNeedsLegacyProvider } from '../presets/index.js';
import { IPERF3_SERVER_READY, iperf3ServerArgs, parseIperf3Json, startIperf3Client } from './iperf3.js';
import { measureLatency } from './latency.js';
import { costBetween, readProcessCost } from './process-cost.js';
import { describeExit, startProcess } from './processes.js';

const CLI = fileURLToPath(new URL('../../bin/cipherbench.js', import.meta.url));
// The relays and the echo target say the same thing when they listen.
const LISTENING = /^listening on /;
// After a relay dies mid-test iperf3 usually reports the broken connection
// at once; past this it is stopped so a stuck one cannot hold up the run.
const IPERF3_GRACE_MS = 2000;

function relayArgs(role, chain, { ports, key }) {
  const flags = chainNeedsLegacyProvider(chain) ? [LEGACY_FLAG] : [];
  const where = role === 'server'
    ? ['--listen', `127.0.0.1:${ports.server}`]
    : ['--listen', `127.0.0.1:${ports.client}`, '--server', `127.0.0.1:${ports.server}`, '--forward', `127.0.0.1:${ports.target}`];
  return [...flags, CLI, 'relay', role, ...where, '--key', key, '--presets', JSON.stringify(chain)];
}

// One run of a case: iperf3 -s on the target port, the relay pair in front
// of it, iperf3 -c through the pair for `duration` seconds (with -R when
// `direction` is 'reverse'), then, with `latency`, the latency probe through
// the same relays, then everything stopped. Resolves with { status, reason,
// sender, receiver, wallSeconds, cost } plus { latency } or
// { latencyReason } when the probe ran, and never throws for a fault of the
// case itself; status 'skipped' means `signal` was aborted before the run
// could finish.
export async function runCase(chain, { index, direction = 'forward', ports, duration, parallel, readyTimeout, latency = false, iperf3, key, signal, emit }) {
  const started = performance.now();
  const children = [];
  // Every child's pid goes to the observer, so a caller can watch or check them.
  const track = (role, pid) => {
    if (pid !== undefined) emit({ type: 'process-started', index, role, pid });
  };
  // The three listeners do not touch each other until a connection arrives,
  // so they start together and the slowest start sets the wait.
  const start = (role, label, file, args) => {
    const child = startProcess(label, file, args);
    children.push(child);
    track(role, child.pid);
    return child;
  };
  let outcome;
  let tails = [];
  let cost = null;
  let probe = {};
  try {
    const target = start('iperf3-server', 'iperf3 -s', iperf3, iperf3ServerArgs(ports.target));
    const server = start('relay-server', 'relay server', process.execPath, relayArgs('server', chain, { ports, key }));
    const client = start('relay-client', 'relay client', process.execPath, relayArgs('client', chain, { ports, key }));
    const waits = { timeoutMs: readyTimeout * 1000, signal };
    const notReady = await firstReason([
      target.ready(IPERF3_SERVER_READY, waits),
      server.ready(LISTENING, waits),
      client.ready(LISTENING, waits),
    ]);
    if (notReady) {
      outcome = { reason: notReady };
    } else {
      // What starting Node and loading the code cost is left out: the
      // relays' CPU is counted from here, when both listen, so the figure
      // per GB does not depend on how long a run lasts.
      const atReady = await readRelayCosts({ client, server });
      const reverse = direction === 'reverse';
      outcome = await measure({ ports, duration, parallel, reverse, iperf3, signal, track, listeners: children });
      // Read before the latency probe: the cost is that of the transfer.
      if (outcome.sender) cost = relayCost(atReady, await readRelayCosts({ client, server }));
    }
    // Read before iperf3 -s is stopped (by the probe or the teardown),
    // which makes it say "interrupt".
    tails = stderrTails(children);
    if (outcome.sender && latency) probe = await probeLatency({ target, start, ports, waits, signal });
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
  const wallSeconds = (performance.now() - started) / 1000;
  if (signal?.aborted) return { status: 'skipped', reason: 'run interrupted', sender: null, receiver: null, wallSeconds, cost: null };
  if (outcome.sender) return { status: 'ok', reason: null, sender: outcome.sender, receiver: outcome.receiver, wallSeconds, cost, ...probe };
  return { status: 'failed', reason: [outcome.reason, ...tails].join('\n'), sender: null, receiver: null, wallSeconds, cost: null };
}

// With the relays still up, iperf3 -s makes way for an echo target on the
// same port, and the latency probe goes through the relay client: the same
// relay processes the bitrate came from. Resolves with { latency } or
// { latencyReason }; { } when the run was interrupted.
async function probeLatency({ target, start, ports, waits, signal }) {
  await target.stop();
  const echo = start('echo-target', 'echo target', process.execPath, [CLI, 'echo', '--listen', `127.0.0.1:${ports.target}`]);
  const notReady = await echo.ready(LISTENING, waits);
  if (signal?.aborted) return {};
  if (notReady) return { latencyReason: [notReady, ...stderrTails([echo])].join('; ') };
  try {
    return { latency: await measureLatency({ host: '127.0.0.1', port: ports.client, signal }) };
  } catch (error) {
    if (signal?.aborted) return {};
    // measureLatency's own failures are one line saying what happened.
    if (error.exitCode === undefined) throw error;
    return { latencyReason: error.message.replace(/^latency: /, '') };
  }
}

async function readRelayCosts({ client, server }) {
  const [clientCost, serverCost] = await Promise.all([readProcessCost(client.pid), readProcessCost(server.pid)]);
  return { client: clientCost, server: serverCost };
}

// Both relays or neither: half a cost would read as a cheap relay.
function relayCost(before, after) {
  const client = costBetween(before.client, after.client);
  const server = costBetween(before.server, after.server);
  return client && server ? { client, server } : null;
}

async function measure({ ports, duration, parallel, reverse, iperf3, signal, track, listeners }) {
  // Generous: the receiver drains the relays' buffers after -t seconds.
  const timeoutMs = (duration * 2 + 10) * 1000;
  const measuring = startIperf3Client(iperf3, { port: ports.client, duration, parallel, reverse }, { signal, timeoutMs });
  track('iperf3-client', measuring.pid);
  const died = Promise.race(listeners.map((child) => child.exited.then(() => child)));
  let dead = null;
  let result = await Promise.race([measuring.result, died.then((child) => {
    dead = child;
    return null;
  })]);
  if (!result) {
    result = await Promise.race([measuring.result, delay(IPERF3_GRACE_MS).then(() => null)]);
    if (!result) {
      measuring.kill();
      result = await measuring.result;
    }
  }
  const deathNote = dead ? `${dead.label} ${describeExit(dead.exit)} during the test` : null;
  if (result.timedOut) return { reason: `iperf3 -c did not finish within ${timeoutMs / 1000} s${deathNote ? `; ${deathNote}` : ''}` };
  const report = parseIperf3Json(result.stdout);
  if (report.error) {
    const stderr = String(result.stderr ?? '').trim().split('\n')[0];
    const detail = result.stdout ? report.error : stderr || describeExit({ code: result.exitCode, signal: result.signal });
    return { reason: [`iperf3: ${detail}`, deathNote].filter(Boolean).join('; ') };
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
