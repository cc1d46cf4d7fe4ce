// @ts-check
import { availableParallelism } from 'node:os';
import { CLI } from '../process/cli-path.js';
import { READY_LINE } from '../process/ready-line.js';
import { inputError } from '../errors.js';
import { GENERATOR_SHARE_LIMIT, IDLE_LIMIT } from '../result.js';
import { DEFAULT_LEVEL, median, medianInterval } from '../statistics/summaries.js';

// The request workload (docs/requests.md): the run's request engine (wrk
// or the built-in client, traffic/request-engine.js) sends HTTP requests
// through the case's entry to a built-in HTTP target, kept alive or each on
// a new connection, for `duration` seconds after `warmup` ones. Its run
// adds { requests } (docs/result.md).
/** @type {import('../contracts.js').Workload} */
export const requestWorkload = {
  name: 'requests',
  // Recorded beside `workload`: results from before it told a request run
  // by it.
  option: {
    name: 'requests',
    after: 'both',
    recorded: true,
    cli: [
      {
        flags: '--requests',
        description:
          'measure the request workload instead of a bulk stream: concurrent HTTP/1.1 clients through each case to a built-in target (docs/requests.md)',
      },
    ],
    refuses: ({ engine }) =>
      engine === 'iperf3' ? '--requests runs its own HTTP clients, not iperf3: drop --engine iperf3' : undefined,
  },
  figures: { field: 'requests', after: 'latency' },
  chooseEngine: async ({ engine, wrkPath, cases }) =>
    (await requestEngines()).chooseRequestEngine({ engine, cases, wrkPath }),
  // A request run measures this machine's relays only.
  check: (selected, settings) => {
    if (settings.link || settings.remote)
      throw inputError('--requests runs on this machine only: drop --link or --remote');
  },
  figure: () => REQUESTS_PER_SECOND,
  target: ({ port, host, settings }) => httpTargetSpec(port, host, settings.responseSize),
  measure: ({ engine, identity, entry, target, settings, signal, track, onMeasuring }) =>
    measureRequestLoad({
      engine,
      identity,
      ...entry,
      target,
      duration: settings.duration,
      warmup: settings.warmup,
      concurrency: settings.concurrency,
      newConnections: settings.newConnections,
      serverPort: settings.ports?.server,
      signal,
      onMeasuring,
      track,
    }),
  measured: ({ requests }) => Boolean(requests),
  result: ({ requests }) => ({ requests }),
  summarise: (runs, { level }) => ({ requests: summariseRequests(runs, { level }) }),
};

// Ratios and the stopping rule judge a request run by its requests per
// second.
/** @type {import('../contracts.js').JudgedFigure} */
const REQUESTS_PER_SECOND = Object.freeze({
  name: 'requests',
  ofRun: (run) => run.requests?.requestsPerSecond ?? null,
  ofCase: ({ requests }) => requests && { summary: requests, middle: requests.requestsPerSecond },
});

// The request engines and the socket tables load with a request run, not
// with every command of the CLI (as bulk.js's engines).
const requestEngines = () => import('../traffic/request-engine.js');

// The HTTP target of the request workload, on the port the engine's server
// takes otherwise.
const httpTargetSpec = (port, host, responseSize) => ({
  role: 'http-target',
  label: 'cipherbench http-target',
  file: process.execPath,
  args: [CLI, 'http-target', '--listen', `${host}:${port}`, '--response-size', String(responseSize)],
  readiness: { stdout: READY_LINE },
});

// The requests through the case's entry: its clients reach the target the
// way the case's inbound says (direct and rows without one: a tunnel). A
// run with no request answered failed, saying how they failed. The figures
// gain what the load generator cost over the counted seconds, as CPU
// seconds and as a share of the machine's cores, which it took from the
// relays it measured (docs/requests.md, "What the load generator took").
// `onMeasuring` is called as the warm-up ends.
async function measureRequestLoad({
  engine,
  identity,
  host = '127.0.0.1',
  port,
  target,
  duration,
  warmup,
  concurrency,
  newConnections,
  serverPort,
  signal,
  onMeasuring,
  track,
}) {
  const { inboundOf } = await requestEngines();
  const opened = newConnections ? await connectionsOpened(port, serverPort) : null;
  const { generatorCpuSeconds, ...figures } = await engine.measure({
    host,
    port,
    kind: inboundOf(identity),
    target,
    concurrency,
    durationSeconds: duration,
    warmupSeconds: warmup,
    newConnections,
    signal,
    onMeasuring: async () => {
      await Promise.all([onMeasuring?.(), opened?.mark()]);
    },
    track,
  });
  if (signal?.aborted) return { reason: 'run interrupted' };
  if (figures.reason) return { reason: figures.reason };
  if (figures.ok === 0) {
    const failures = Object.entries(figures.errors)
      .filter(([, count]) => count > 0)
      .map(([kind, count]) => `${count} ${kind}`);
    return { reason: `no request was answered (${failures.join(', ') || 'none sent'})` };
  }
  return {
    requests: {
      ...figures,
      generator: generatorCost(engine.name, generatorCpuSeconds, figures.seconds),
      opened: opened ? await opened.read() : null,
    },
  };
}

// With a new connection a request, how many TCP connections were opened
// over the counted seconds to the case's entry and to its server's port:
// { entry, server }, or null where the tables could not be read. A relay
// pair that multiplexes (mux) opens fewer to its server than it was given
// (docs/notes/mux.md).
async function connectionsOpened(entryPort, serverPort) {
  const { connectionsOn, openedBetween } = await import('../process/connections-opened.js');
  let before = null;
  const read = () => Promise.all([connectionsOn(entryPort), serverPort ? connectionsOn(serverPort) : null]);
  return {
    async mark() {
      before = await read();
    },
    async read() {
      if (!before) return null;
      const after = await read();
      const entry = openedBetween(before[0], after[0]);
      if (entry === null) return null;
      return { entry, server: openedBetween(before[1], after[1]) };
    },
  };
}

// What the load generator spent while it counted: CPU seconds, and their
// share of every core's time over those seconds; null when not read.
function generatorCost(name, cpuSeconds, seconds) {
  if (cpuSeconds === null || cpuSeconds === undefined) return { engine: name, cpuSeconds: null, share: null };
  return { engine: name, cpuSeconds, share: cpuSeconds / (seconds * availableParallelism()) };
}

// A case's request figures (docs/result.md, "requests") from its runs:
// those of the median run by requests per second (the slower of the two
// middle ones for an even count, as for bitrates), with the spread of
// requests per second over the runs and the interval of their median (low,
// high, level, coverage, as a bitrate's: docs/statistics.md), and each
// relay's CPU seconds per 1,000 requests answered, the median of each run's
// own. null when no run measured requests.
function summariseRequests(runs, { level = DEFAULT_LEVEL } = {}) {
  const measured = runs.filter((run) => run.status === 'ok' && run.requests);
  if (measured.length === 0) return null;
  const rates = measured.map((run) => run.requests.requestsPerSecond);
  const byRate = [...measured].sort((a, b) => a.requests.requestsPerSecond - b.requests.requestsPerSecond);
  const medianRun = byRate[Math.ceil(byRate.length / 2) - 1];
  const costed = measured.filter((run) => run.cost);
  const perThousand = (role) => median(costed.map((run) => run.cost[role].cpuSeconds / (run.requests.ok / 1000)));
  return {
    ...medianRun.requests,
    requestsPerSecond: median(rates),
    min: Math.min(...rates),
    max: Math.max(...rates),
    ...medianInterval(rates, level),
    cpuSecondsPerThousand:
      costed.length === 0 ? null : { client: perThousand('client'), server: perThousand('server') },
    generator: summariseGenerator(measured),
  };
}

// What the load generator cost over a case's runs: its CPU seconds per
// 1,000 requests answered and its share of the machine (medians), and
// how many runs it may have squeezed (result.js's limits). Runs from before
// the generator was measured have none: null.
function summariseGenerator(runs) {
  const read = runs.filter((run) => typeof run.requests.generator?.cpuSeconds === 'number');
  if (read.length === 0) return null;
  const squeezed = read.filter(
    (run) =>
      run.requests.generator.share > GENERATOR_SHARE_LIMIT &&
      (typeof run.disturbance?.idle !== 'number' || run.disturbance.idle < IDLE_LIMIT),
  ).length;
  return {
    engine: read[0].requests.generator.engine,
    cpuSecondsPerThousand: median(read.map((run) => run.requests.generator.cpuSeconds / (run.requests.ok / 1000))),
    share: median(read.map((run) => run.requests.generator.share)),
    squeezedRuns: squeezed,
  };
}
