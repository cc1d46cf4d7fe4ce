import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ceilingFor, measureChainCeilings } from '../ceiling/chain-ceilings.js';
import { collectEnvironment } from './environment.js';
import { casesSource, duplicateWarnings, formatCaseProblems, loadCasesFile, resolveCasesFile, selectCases, selectReferenceCase, validateCases } from './cases-file.js';
import { chooseEngine } from '../traffic/engine.js';
import { chooseRequestEngine } from '../traffic/request-engine.js';
import { setUpLink } from './link/namespaces.js';
import { connectRemote } from './remote/ssh.js';
import { inputError } from '../errors.js';
import { RESULT_VERSION } from '../result.js';
import { MIN_ROUNDS, normalizeOptions, recordedOptions } from './options.js';
import { locatePeer } from '../peers/index.js';
import { bisectRate, checkUdpCases, summariseUdp } from '../workload/udp.js';
import { assertPortsFree } from '../process/ports.js';
import { clearLeftovers } from '../process/child-ledger.js';
import { measureNoiseFloor } from './noise-floor.js';
import { runCase } from './run-case.js';
import { summariseRequests } from '../workload/requests.js';
import { caseEntries, directionsFor, roundOrder } from './schedule.js';
import { findProgram } from '../process/programs.js';
import {
  bootstrapMedianInterval, DEFAULT_LEVEL, median, pairedRatios, runCostPerGB, seededRandom, summarise, summariseCost,
} from '../statistics/summaries.js';

const { name, version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

// Runs every selected case and resolves with the result object of
// docs/result.md. Options (all optional): each entry of RUN_OPTIONS
// (options.js) by its name, with the CLI flag's meaning and default (the
// API also takes numbers for numbers, and ports as { client, server,
// target }), and:
//   casesFile    path of a cases file (default ./cases.js, else the bundled one)
//   cases        an array of cases (preset chains or reference rows)
//                instead of a file
//   iperf3Path   the iperf3 to run (default: the one on PATH); implies
//                engine 'iperf3'
//   signal       an AbortSignal: stops the run in progress, skips the rest
//                and records signal.reason ('SIGINT', 'SIGTERM', 'SIGHUP') as interrupted
//   onEvent      called with { type: 'run-started', result, total, cases },
//                whose result.cases holds every case as measured so far
//                from then on (see interimResult below),
//                { type: 'ceiling-started', presets, position, total },
//                { type: 'case-started', case, position, total, repeat, repeats },
//                { type: 'process-started', index, role, pid, command },
//                { type: 'case-finished', case, run, position, total, repeat, repeats, last }
//                { type: 'round-finished', round, rounds, widest },
//                { type: 'noise-floor-started', runs },
//                { type: 'noise-floor-finished', noiseFloor }
//                where cases counts the cases (each direction of --both
//                apart) and total the runs; a case-started/-finished pair
//                is one run of a case (case is { index, presets, direction }
//                at the start, and for a reference row its impl, fields
//                and label in place of presets; the case summarised so
//                far at the end),
//                position counts the runs, 1 to total (with --confidence
//                total grows by a round's runs as a round is added),
//                repeat is the round, from 0, repeats the rounds (null
//                with --confidence, which decides as it goes), last is true
//                after the case's final round (never with --confidence: the
//                reporter prints those cases at the end), widest is the
//                case with the widest interval so far ({ index, direction,
//                width }, or null), rounds the most rounds there can be,
//                and role is
//                iperf3-server or traffic-sink, relay-server, relay-client
//                (whichever implementation the case runs), iperf3-client or
//                traffic-sender, or echo-target
// Bad input (options, cases file, iperf3 asked for but missing, a busy
// port) rejects with an error whose exitCode is 2, before any process
// starts. A run that fails is recorded as failed and the rest go on; a
// reference row whose implementation is not installed is skipped, saying
// how to install it. run() never prints or archives.
export async function run(options = {}) {
  const settings = normalizeOptions(options);
  const { casesFile, cases } = await loadCases(options);
  const selected = selectCases(cases, settings.filter).slice(0, settings.caseLimit ?? undefined);
  checkInbounds(selected, settings);
  const referenceIndex = settings.relativeTo === null ? null : selectReferenceCase(cases, selected, settings.relativeTo);
  const engine = settings.requests
    ? await chooseRequestEngine({ engine: settings.engine, cases: selected, wrkPath: options.wrkPath })
    : await chooseEngine({ engine: settings.engine, iperf3Path: options.iperf3Path });
  if (settings.rate !== null && !settings.udp && !engine.pacesReverse && (settings.reverse || settings.both)) {
    throw inputError('--rate with --reverse or --both needs --engine iperf3: the built-in engine paces only what its sender sends');
  }
  if (settings.udp) checkUdpCases(selected, settings, engine);
  const { signal } = options;
  const emit = options.onEvent ?? (() => {});

  const startedAt = new Date();
  const started = performance.now();
  // On a link every process runs in namespaces made for this run, where
  // the machine's own ports are no one's; with --remote only the relay
  // client listens here, the relay server and the target listen there.
  // What an earlier run that was killed outright left running (its iperf3
  // -s on our port) is ended first, and the report says so.
  const leftovers = await clearLeftovers();
  if (!settings.link) await assertPortsFree(settings.remote ? { client: settings.ports.client } : settings.ports);
  // The iperf3 here is described even when the built-in engine measures,
  // as a reader comparing two reports will want to know.
  const iperf3Path = engine.name === 'iperf3' ? engine.path : await findProgram('iperf3');
  const [environment, located, remote, source] = await Promise.all([
    collectEnvironment({ iperf3Path, wrkPath: engine.name === 'wrk' ? engine.path : null }),
    Promise.all(selected.map((selection) => locatePeer(selection))),
    settings.remote ? connectRemote({ ...settings.remote, version }) : null,
    casesSource(casesFile),
  ]);
  // The server's host speaks for itself: its own machine, OS and Node.
  if (remote) environment.remote = { destination: remote.destination, address: remote.serverAddress, ...remote.environment };
  const result = {
    resultVersion: RESULT_VERSION,
    tool: { name, version },
    startedAt: startedAt.toISOString(),
    finishedAt: null,
    wallSeconds: null,
    complete: false,
    interrupted: null,
    // How many rounds ran, and with --confidence why they stopped.
    rounds: 0,
    stopped: null,
    noiseFloor: null,
    environment,
    // The engine that measured, after 'auto' chose.
    options: { casesFile, casesSource: source, ...recordedOptions(settings), engine: engine.name },
    warnings: [
      ...leftovers.map(({ pid, command }) => `ended pid ${pid} (${command}), left running by an earlier cipherbench run that was killed`),
      ...duplicateWarnings(selected),
      ...(settings.requests && engine.reason ? [`the built-in Node client loads every case, not wrk: ${engine.reason}; its own CPU may squeeze the rows (docs/requests.md)`] : []),
    ],
    cases: [],
  };
  // Each run's CPU profiles in a folder of its own, named for its start.
  const profileDir = settings.profile && path.join(settings.profile, result.startedAt.replace(/[:.]/g, '-'));
  const found = new Map(selected.map((selection, at) => [selection.index, located[at]]));
  const entries = caseEntries(selected, directionsFor(settings));
  // A case whose implementation is missing has no runs: it is skipped.
  const measurable = entries.map(({ index }) => !found.get(index).reason);
  const perRound = measurable.filter(Boolean).length;
  const { confidence } = settings;
  const level = confidence?.level ?? DEFAULT_LEVEL;
  // Without the stopping rule a run is --repeat rounds; with it, at least
  // MIN_ROUNDS and at most --max-rounds.
  const minRounds = confidence ? Math.max(settings.repeat, MIN_ROUNDS) : settings.repeat;
  const maxRounds = confidence ? Math.max(settings.maxRounds, minRounds) : settings.repeat;
  let total = minRounds * perRound;
  const states = entries.map(({ index }) => ({ runs: [], latency: null, latencyReason: null, unavailable: found.get(index).reason ?? null }));
  let ceilings = null;
  const summary = (entry) => summariseCase(entries[entry], states[entry], { parallel: settings.parallel, ceilings, level });
  // The figure ratios and the stopping rule judge: a fixed rate over TCP
  // makes it cost (over UDP the rate is the offered load, and loss at it the
  // figure: workload/udp.js); the request workload's is requests per second.
  const costMode = settings.rate !== null && !settings.udp;
  const figure = costMode ? 'cost' : settings.requests ? 'requests' : 'bitrate';
  const summaries = () => withConvergence(withRelative(entries.map((_, entry) => summary(entry)), referenceIndex, level, figure), confidence, figure);
  // Set up before anything is said or measured: a machine that cannot make
  // the link says so first, as bad input.
  const link = settings.link && !signal?.aborted ? await setUpLink(settings.link) : null;
  let rounds = 0;
  let stopped = null;
  // Kept current as each run ends, so a caller that must stop before run()
  // returns (a second Ctrl-C) can still write every case measured so far.
  const measuredSoFar = () => {
    result.cases = summaries();
    result.rounds = rounds;
  };
  measuredSoFar();
  try {
    emit({ type: 'run-started', result, total, cases: entries.length });
    ceilings = settings.ceiling
      ? await measureChainCeilings(selected.filter((selection) => !selection.impl).map((selection) => selection.presets), {
        signal,
        onChain: (presets, position, count) => emit({ type: 'ceiling-started', presets, position, total: count }),
      })
      : null;

    // One password per run: the relays only ever talk to each other. Hex,
    // as base64url may start with '-', which another relay's command line
    // (ssserver -k -x...) would take for an option.
    const key = randomBytes(16).toString('hex');
    // Wherever there is a ranking to judge against it: two cases or more.
    // The direct runs move bulk TCP whatever the workload: their spread is
    // the machine's, which a request rate or a UDP bitrate shares.
    if (settings.noiseFloor > 0 && perRound >= 2 && !signal?.aborted) {
      emit({ type: 'noise-floor-started', runs: settings.noiseFloor });
      // A request run's engine loads requests: the floor's bulk TCP runs
      // take the bulk engine (iperf3 when installed, else the built-in one).
      const bulkEngine = settings.requests ? await chooseEngine({ engine: 'auto', iperf3Path: options.iperf3Path }) : engine;
      result.noiseFloor = await measureNoiseFloor(settings.noiseFloor, { settings, engine: bulkEngine, key, link, remote, signal, emit });
      emit({ type: 'noise-floor-finished', noiseFloor: result.noiseFloor });
    }
    const random = seededRandom(settings.seed);
    const roundsStarted = performance.now();
    let position = 0;
    for (let round = 0; round < maxRounds && !signal?.aborted; round += 1) {
      if (round >= minRounds) {
        const sofar = summaries();
        if (sofar.every((caseResult) => caseResult.converged !== false)) {
          stopped = 'converged';
          break;
        }
        // A round is started only when, at the pace of the rounds so far,
        // it ends within --max-time.
        const elapsed = (performance.now() - started) / 1000;
        const perRoundSeconds = (performance.now() - roundsStarted) / 1000 / round;
        if (settings.maxTime !== null && elapsed + perRoundSeconds > settings.maxTime) {
          stopped = 'max-time';
          break;
        }
        total += perRound;
      }
      // The order is drawn for every entry, measurable or not, so a seed
      // replays the same order whatever is installed.
      const order = roundOrder(entries, random).filter((entry) => measurable[entry]);
      for (const entry of order) {
        if (signal?.aborted) break;
        position += 1;
        const { index, direction, ...identity } = entries[entry];
        const state = states[entry];
        const where = { position, total, repeat: round, repeats: confidence ? null : settings.repeat };
        emit({ type: 'case-started', case: { index, ...identity, direction }, ...where });
        const runOptions = {
          index, direction, ...settings, latency: settings.latency && !settings.requests && !state.latency, engine, key, found: found.get(index).found, link, remote, signal, emit, profile: profileDir, profileRun: round,
        };
        // With --max-loss a run is the bisection's probes, its figure the highest rate that passed.
        const outcome = settings.maxLoss === null
          ? await runCase(identity, runOptions)
          : await bisectRate((rate) => runCase(identity, { ...runOptions, rate }), settings);
        const { latency, latencyReason, ...measured } = outcome;
        const runResult = { repeat: round, ...measured };
        state.runs.push(runResult);
        if (latency) state.latency = latency;
        if (latencyReason) state.latencyReason = latencyReason;
        measuredSoFar();
        if (runResult.status !== 'skipped') {
          // With the stopping rule no round is known to be the last before it ends.
          emit({ type: 'case-finished', case: summary(entry), run: runResult, ...where, last: !confidence && round === settings.repeat - 1 });
        }
      }
      if (signal?.aborted) break;
      rounds += 1;
      emit({ type: 'round-finished', round, rounds: maxRounds, widest: widestInterval(summaries()) });
    }
    if (confidence && stopped === null && !signal?.aborted) stopped = summaries().every((caseResult) => caseResult.converged !== false) ? 'converged' : 'max-rounds';
  } finally {
    await link?.tearDown();
  }
  measuredSoFar();
  result.stopped = stopped;

  result.finishedAt = new Date().toISOString();
  result.wallSeconds = (performance.now() - started) / 1000;
  result.complete = !signal?.aborted;
  result.interrupted = signal?.aborted ? interruptName(signal.reason) : null;
  return result;
}

// A run during which the hypervisor took more than this share of the
// machine's CPU time for other guests is flagged: its figures measure the
// neighbours.
const STEAL_WARNING = 0.05;

// A case from its runs so far: ok when any run was, failed when none was
// and one failed (with the last failure's reason), else skipped (its
// implementation is not installed, or the run was interrupted before it
// measured anything).
function summariseCase({ index, direction, ...identity }, { runs, latency, latencyReason, unavailable }, { parallel, ceilings, level }) {
  const ok = runs.some((run) => run.status === 'ok');
  const lastFailure = runs.findLast((run) => run.status === 'failed');
  const status = ok ? 'ok' : lastFailure ? 'failed' : 'skipped';
  const { sender, receiver, unstable } = summarise(runs, { level });
  // A reference row's cipher is not ours: no ceiling to hold it against.
  const chainCeiling = ceilings && !identity.impl ? ceilingFor(ceilings, identity.presets) : null;
  const warnings = [];
  if (chainCeiling?.reason) warnings.push(`no cipher ceiling: ${chainCeiling.reason}`);
  if (ok && !latency && latencyReason) warnings.push(`no latency: ${latencyReason}`);
  const stolen = runs.filter((run) => run.disturbance?.steal > STEAL_WARNING).length;
  if (stolen > 0) warnings.push(`steal above ${STEAL_WARNING * 100}% in ${stolen} of ${runs.length} runs: the hypervisor gave this machine's CPU to other guests while it measured`);
  return {
    index,
    ...identity,
    status,
    reason: ok ? null : lastFailure?.reason ?? unavailable ?? 'run interrupted',
    direction,
    parallel,
    // A copy: the case an event carries must not grow with later runs.
    runs: [...runs],
    sender,
    receiver,
    unstable,
    wallSeconds: runs.reduce((sum, run) => sum + run.wallSeconds, 0),
    cost: summariseCost(runs, { level }),
    wire: summariseWire(runs),
    transport: summariseTransport(runs),
    udp: summariseUdp(runs),
    latency,
    requests: summariseRequests(runs, { level }),
    ceiling: chainCeiling?.ceiling ? withEfficiency(chainCeiling.ceiling, receiver) : null,
    warnings,
  };
}

// iperf3 and the built-in sender reach a case through a port forward; the
// other inbounds are for the request workload's own clients. A request run
// measures this machine's relays only.
function checkInbounds(selected, settings) {
  if (settings.requests && (settings.link || settings.remote)) throw inputError('--requests runs on this machine only: drop --link or --remote');
  if (settings.requests) return;
  const proxied = selected.filter((selection) => selection.inbound && selection.inbound !== 'tunnel');
  if (proxied.length > 0) {
    throw inputError(`case ${proxied[0].index} has inbound ${proxied[0].inbound}, which only the request workload uses: run with --requests, or give the case no inbound`);
  }
}

// On a link, the median share of the payload that the wire carried on top
// of it, over the ok runs; null without a link.
function summariseWire(runs) {
  const overheads = runs.map((run) => run.wire?.overhead).filter((value) => typeof value === 'number');
  return overheads.length === 0 ? null : { overhead: median(overheads) };
}

// What the relay client's transport negotiated (TLS: version and suite),
// each different one once, over the ok runs; null when none said.
function summariseTransport(runs) {
  const said = [...new Set(runs.map((run) => run.transport).filter(Boolean))];
  return said.length === 0 ? null : said.join('; ');
}

// With --relative-to, each case against the named case in the same
// direction, as hyperfine puts one command against another, but paired:
// for each round both measured, this case's receiver bitrate over the
// reference's, and the median of those ratios with its bootstrap
// interval: { to: index, ratio, low, high, level, rounds }. ratio is null
// for the named case itself and when no round measured both; low and high
// are null with fewer than 3 such rounds. null for every case without it.
// At a fixed rate (figure 'cost') the ratios are of the pair's CPU seconds
// per GB, over the rounds where neither run was saturated; in the request
// workload (figure 'requests'), of requests per second.
const RUN_FIGURES = {
  bitrate: undefined,
  cost: (run) => (run.saturated ? null : runCostPerGB(run)),
  requests: (run) => run.requests?.requestsPerSecond ?? null,
};

function withRelative(cases, referenceIndex, level, figureName) {
  const figure = RUN_FIGURES[figureName];
  return cases.map((caseResult) => {
    if (referenceIndex === null) return { ...caseResult, relative: null };
    const reference = cases.find((other) => other.index === referenceIndex && other.direction === caseResult.direction);
    const ratios = reference && caseResult !== reference ? pairedRatios(caseResult.runs, reference.runs, figure) : [];
    const none = { to: referenceIndex, ratio: null, low: null, high: null, level, rounds: ratios.length };
    if (ratios.length === 0) return { ...caseResult, relative: none };
    const { low, high } = bootstrapMedianInterval(ratios, { level });
    return { ...caseResult, relative: { ...none, ratio: median(ratios), low, high } };
  });
}

// Each case's width, the widest of the intervals the stopping rule judges
// (its median receiver bitrate's, or at a fixed rate its pair's CPU
// seconds per GB, and with --relative-to its ratio's),
// low to high as a share of the median; null when it has no interval yet.
// With --confidence, converged says whether every one of them is as narrow
// as asked at the level asked (fewer rounds than the level needs never
// converge); null without --confidence, and for a case not measured.
function withConvergence(cases, confidence, figureName) {
  return cases.map((caseResult) => {
    const widths = [];
    let reachesLevel = true;
    // At a fixed rate a case with relays is judged on its cost; direct,
    // which has none, on its bitrate.
    const figure = caseFigure(caseResult, figureName);
    if (figure) {
      const { summary: { low, high, coverage, level }, middle } = figure;
      widths.push(low === null ? null : (high - low) / middle);
      reachesLevel = coverage >= level;
    }
    if (caseResult.relative && caseResult.relative.ratio !== null) {
      const { low, high, ratio } = caseResult.relative;
      widths.push(low === null ? null : (high - low) / ratio);
    }
    const width = widths.length === 0 || widths.includes(null) ? null : Math.max(...widths);
    const converged = confidence && caseResult.status === 'ok' ? width !== null && reachesLevel && width <= confidence.width : null;
    return { ...caseResult, width, converged };
  });
}

// The summary the stopping rule judges a case on, with its interval, and
// that summary's median (each summary names it for what it measures):
// { summary, middle }, or null for a case with nothing measured.
function caseFigure(caseResult, figureName) {
  if (figureName === 'cost' && caseResult.cost) return { summary: caseResult.cost.pair, middle: caseResult.cost.pair.cpuSecondsPerGB };
  if (figureName === 'requests') return caseResult.requests && { summary: caseResult.requests, middle: caseResult.requests.requestsPerSecond };
  return caseResult.receiver && { summary: caseResult.receiver, middle: caseResult.receiver.bits_per_second };
}

// The case whose interval is widest so far, for the progress line:
// { index, direction, width }, or null while no case has an interval.
function widestInterval(cases) {
  const widest = cases.filter((caseResult) => caseResult.width !== null).sort((a, b) => b.width - a.width)[0];
  return widest ? { index: widest.index, direction: widest.direction, width: widest.width } : null;
}

// How much of what the cipher alone could carry on one core the relay pair
// delivered: the slower direction bounds it, as a relay pair runs both.
// null when nothing was measured to set against it.
function withEfficiency(ceiling, receiver) {
  const bound = Math.min(ceiling.encrypt_bps, ceiling.decrypt_bps);
  return { ...ceiling, efficiency: receiver ? receiver.bits_per_second / bound : null };
}

// The CLI aborts with the signal's name; an API caller's own reason (an
// Error, say) is recorded as 'aborted' rather than guessed at.
const interruptName = (reason) => (['SIGINT', 'SIGTERM', 'SIGHUP'].includes(reason) ? reason : 'aborted');

async function loadCases({ casesFile, cases }) {
  if (cases !== undefined && casesFile !== undefined) throw inputError('give either cases or casesFile, not both');
  const file = cases === undefined ? resolveCasesFile(casesFile) : null;
  const loaded = file ? await loadCasesFile(file) : cases;
  const problems = validateCases(loaded);
  if (problems.length > 0) throw inputError(formatCaseProblems(file ?? 'given as cases', problems));
  return { casesFile: file, cases: loaded };
}

// The result a run-started event carried, as it stands now: every case as
// measured so far, marked interrupted by `reason`. For a caller that must
// stop before run() returns and still keep what was measured.
export function interimResult(result, reason) {
  const finishedAt = new Date();
  return {
    ...result,
    finishedAt: finishedAt.toISOString(),
    wallSeconds: (finishedAt - new Date(result.startedAt)) / 1000,
    complete: false,
    interrupted: interruptName(reason),
  };
}
