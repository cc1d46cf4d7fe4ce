// @ts-check
import { setTimeout as delay } from 'node:timers/promises';
import { inputError } from '../errors.js';
import { runCostPerGB, summarise } from '../statistics/summaries.js';

// The bulk workload: the traffic engine (iperf3, or the built-in sender and
// sink) moves one TCP stream, or --parallel ones, through the case's entry
// for `duration` seconds, reversed for direction 'reverse'; with `rate`
// (bits/s) the sender offers that rate and the run says whether the relays
// kept up. Its run adds { sender, receiver } as iperf3 -J reports them.
// It is the one a run measures when no workload's option asks for another.
//
// Every workload (this one, workload/udp.js, workload/requests.js) has the
// same parts, which the runner uses in the order of the Workload type
// (lib/contracts.js), and its line in workload/index.js; the runner never
// names one.

// The engines and the process watching load with a run's first use, not
// with every command of the CLI, which reads the workloads' options
// (runner/run-options.js): a helper a run starts (a sink, a target) starts
// as fast as before the workloads declared them.
const engines = () => import('../traffic/engine.js');
const measuringParts = () =>
  Promise.all([engines(), import('../traffic/iperf3.js'), import('../process/processes.js')]);

// After a relay dies mid-test the engine's client usually reports the
// broken connection at once; past this it is stopped so a stuck one cannot
// hold up the run.
const CLIENT_GRACE_MS = 2000;
// A traffic client that failed may have failed because a relay died under
// it: the kernel resets the client's connection at once, but the relay's
// exit can reach this process's event loop after the client's (seen at
// load 8 on 2 cores), so a failure waits this long for one to be told of.
const EXIT_NEWS_MS = 1000;

/** @type {import('../contracts.js').Workload} */
export const bulkWorkload = {
  name: 'bulk',
  chooseEngine: async ({ engine, iperf3Path }) => (await engines()).chooseEngine({ engine, iperf3Path }),
  check: checkBulk,
  // At a fixed rate over TCP the figure is what carrying it cost.
  figure: (settings) => (settings.rate === null ? BITRATE : COST),
  target: ({ engine, port, host }) => engine.server(port, host),
  measure: (measuring) => transferThrough(measuring),
  measured: ({ sender }) => Boolean(sender),
  result: ({ sender, receiver }, settings) => ({
    sender,
    receiver,
    ...saturation(settings.rate, { sender, receiver }),
  }),
  summarise: (runs, { level }) => summarise(runs, { level }),
};

// A stream's figures as ratios and the stopping rule judge them: the
// receiver's bitrate, or at a fixed rate the pair's CPU seconds per GB over
// the runs that kept up. A case with relays is judged on its cost; direct,
// which has none, on its bitrate.
/** @type {import('../contracts.js').JudgedFigure} */
export const BITRATE = Object.freeze({
  name: 'bitrate',
  ofRun: (run) => run.receiver?.bits_per_second ?? null,
  ofCase: ({ receiver }) => receiver && { summary: receiver, middle: receiver.bits_per_second },
});

/** @type {import('../contracts.js').JudgedFigure} */
const COST = Object.freeze({
  name: 'cost',
  ofRun: (run) => (run.saturated ? null : runCostPerGB(run)),
  ofCase: (caseResult) =>
    caseResult.cost
      ? { summary: caseResult.cost.pair, middle: caseResult.cost.pair.cpuSecondsPerGB }
      : BITRATE.ofCase(caseResult),
});

// iperf3 and the built-in sender reach a case through a port forward; the
// other inbounds are for the request workload's own clients. The built-in
// engine paces only what its sender sends.
function checkBulk(selected, settings, engine) {
  const proxied = selected.filter((selection) => selection.inbound && selection.inbound !== 'tunnel');
  if (proxied.length > 0) {
    throw inputError(
      `case ${proxied[0].index} has inbound ${proxied[0].inbound}, which only the request workload uses: run with --requests, or give the case no inbound`,
    );
  }
  if (settings.rate !== null && !engine.pacesReverse && (settings.reverse || settings.both)) {
    throw inputError(
      '--rate with --reverse or --both needs --engine iperf3: the built-in engine paces only what its sender sends',
    );
  }
}

// One transfer of the run's settings through the case's entry (a
// workload's measure() arguments); `overrides` change what it sends (the
// UDP workload's datagrams). With --warmup, the same transfer for that
// many seconds (in two, warmupTransfers) through the same relays comes
// first and is not counted: fresh relays on a JIT compile their hot code
// over their first seconds of traffic, and at a fixed 400 Mbit/s our
// aes-256-gcm pair spent 4.7-5.1 CPU s/GB over its first 3 s, 3.7-4.4
// over the next 3 and 2.6-4.0 after that, where shadowsocks-libev spent
// 1.8-2.0 throughout (docs/statistics.md). At its own rate, not faster: a
// paced stream takes other paths through Node's streams (writev of corked
// records) than a saturated one, and after 10 s as fast as it went a
// relay still compiled 39 functions over its next 8 s at 400 Mbit/s.
/**
 * @param {import('../contracts.js').Measuring} measuring
 * @param {{ rate?: null, udp?: { rate: number, length: number } }} [overrides]
 * @returns {Promise<import('../contracts.js').Measured>}
 */
export async function transferThrough(
  { engine, entry, settings, direction, signal, track, listeners, place, onMeasuring },
  overrides = {},
) {
  const transfer = {
    engine,
    ...entry,
    duration: settings.duration,
    parallel: settings.parallel,
    rate: settings.rate,
    reverse: direction === 'reverse',
    signal,
    track,
    listeners,
    place,
  };
  for (const seconds of warmupTransfers(settings.warmup)) {
    const warm = await measureTransfer({ ...transfer, duration: seconds, ...overrides });
    if (warm.reason) return { reason: `during the warm-up: ${warm.reason}` };
    if (overrides.udp) await delay(UDP_DRAIN_MS, undefined, { signal }).catch(() => {});
    if (signal?.aborted) return { reason: 'run interrupted' };
  }
  await onMeasuring?.();
  return measureTransfer({ ...transfer, ...overrides });
}

// After a UDP transfer past what a relay carries, the datagrams its 4 MB
// buffers hold (lib/relay/udp/socket.js) still reach iperf3 -s for a
// while, and an iperf3 -s that meets one of them as the next test starts
// answers that test's first datagram to the old sender: the next iperf3 -c
// waited forever, through our relays every second test of 1 s at 1 Gbit/s
// started at once, none of four after a pause of 1 s (libev and bare-node
// buffer less: four of four at once).
const UDP_DRAIN_MS = 1000;

// The warm-up's seconds as the transfers that make it: two where it has
// two seconds or more. A relay recompiles at its second connection as much
// as at its first (V8 meets that connection's closures and objects), not
// at its fourth: TurboFan compiles in a server relay, cumulative, at 400
// Mbit/s over four 10 s transfers: 77, 135, 152, 154.
export function warmupTransfers(seconds) {
  if (seconds < 2) return seconds > 0 ? [seconds] : [];
  const first = Math.ceil(seconds / 2);
  return [first, seconds - first];
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

// One transfer by the engine's client from `host`:`port`, placed where the
// run puts its client (`place`), watched against the `listeners`: when one
// of them dies the client gets a grace period, then is stopped, and the
// failure names who died. Resolves with iperf3 -J's figures, or { reason }.
// UDP runs pass `udp` ({ rate, length }) and no TCP `rate`.
/** @returns {Promise<import('../contracts.js').Measured>} */
async function measureTransfer({
  engine,
  host = '127.0.0.1',
  port,
  duration,
  parallel,
  rate,
  reverse,
  udp = null,
  signal,
  track,
  listeners,
  place,
}) {
  const [{ startTrafficClient }, { parseIperf3Json }, { describeExit, tellingLines }] = await measuringParts();
  // Generous: the receiver drains the relays' buffers after the duration.
  const timeoutMs = (duration * 2 + 10) * 1000;
  const measuring = startTrafficClient(
    engine,
    { host, port, duration, parallel, reverse, rate, udp },
    { signal, timeoutMs, place },
  );
  track(measuring.role, measuring.pid, measuring.command);
  const died = Promise.race(listeners.map((child) => child.exited.then(() => child)));
  let dead = null;
  let result = await Promise.race([
    measuring.result,
    died.then((child) => {
      dead = child;
      return null;
    }),
  ]);
  if (!result) {
    result = await Promise.race([measuring.result, delay(CLIENT_GRACE_MS).then(() => null)]);
    if (!result) {
      measuring.kill();
      result = await measuring.result;
    }
  }
  // Both engines print iperf3 -J's shape, errors included.
  const report = result.timedOut ? null : parseIperf3Json(result.stdout);
  if (!dead && (result.timedOut || report.error))
    dead = await Promise.race([died, delay(EXIT_NEWS_MS).then(() => null)]);
  const deathNote = dead ? `${dead.label} ${describeExit(dead.exit)} during the test` : null;
  if (result.timedOut)
    return {
      reason: `${measuring.label} did not finish within ${timeoutMs / 1000} s${deathNote ? `; ${deathNote}` : ''}`,
    };
  const { error, ...figures } = report;
  if (error) {
    const stderr = String(result.stderr ?? '')
      .trim()
      .split('\n');
    const detail = result.stdout ? error : stderr[0] || describeExit({ code: result.exitCode, signal: result.signal });
    // The client's own last words under the one line, as the listeners' are.
    const tail = tellingLines(result.stdout ? stderr : stderr.slice(1)).map((line) => `${measuring.label}: ${line}`);
    return { reason: [[`${engine.errorPrefix}${detail}`, deathNote].filter(Boolean).join('; '), ...tail].join('\n') };
  }
  return figures;
}
