import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ceilingFor, measureChainCeilings } from './chain-ceilings.js';
import { collectEnvironment } from './environment.js';
import { duplicateWarnings, formatCaseProblems, loadCasesFile, resolveCasesFile, selectCases, selectReferenceCase, validateCases } from './cases-file.js';
import { chooseEngine } from '../traffic/engine.js';
import { setUpLink } from './link/namespaces.js';
import { connectRemote } from './remote/ssh.js';
import { inputError } from '../errors.js';
import { RESULT_VERSION } from '../result.js';
import { normalizeOptions, recordedOptions } from './options.js';
import { locatePeer } from '../peers/index.js';
import { bisectRate, checkUdpCases, summariseUdp } from './udp-mode.js';
import { assertPortsFree } from '../process/ports.js';
import { runCase } from './run-case.js';
import { caseEntries, directionsFor, interleave } from './schedule.js';
import { findProgram } from '../process/programs.js';
import { median, summarise, summariseCost } from '../statistics.js';

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
//                and records signal.reason ('SIGINT', 'SIGTERM') as interrupted
//   onEvent      called with { type: 'run-started', result, total, cases },
//                { type: 'ceiling-started', presets, position, total },
//                { type: 'case-started', case, position, total, repeat, repeats },
//                { type: 'process-started', index, role, pid },
//                { type: 'case-finished', case, run, position, total, repeat, repeats, last }
//                where cases counts the cases (each direction of --both
//                apart) and total the runs; a case-started/-finished pair
//                is one run of a case (case is { index, presets, direction }
//                at the start, and for a reference row its impl, fields
//                and label in place of presets; the case summarised so
//                far at the end),
//                position counts the runs, 1 to total, repeat counts from 0,
//                last is true after the case's final repeat, and role is
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
  const referenceIndex = settings.relativeTo === null ? null : selectReferenceCase(cases, selected, settings.relativeTo);
  const engine = await chooseEngine({ engine: settings.engine, iperf3Path: options.iperf3Path });
  if (settings.udp) checkUdpCases(selected, settings, engine);
  const { signal } = options;
  const emit = options.onEvent ?? (() => {});

  const startedAt = new Date();
  const started = performance.now();
  // On a link every process runs in namespaces made for this run, where
  // the machine's own ports are no one's.
  if (!settings.link) await assertPortsFree(settings.ports);
  // The iperf3 here is described even when the built-in engine measures,
  // as a reader comparing two reports will want to know.
  const iperf3Path = engine.name === 'iperf3' ? engine.path : await findProgram('iperf3');
  const [environment, located, remote] = await Promise.all([
    collectEnvironment({ iperf3Path }),
    Promise.all(selected.map((selection) => locatePeer(selection))),
    settings.remote ? connectRemote({ ...settings.remote, version }) : null,
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
    environment,
    // The engine that measured, after 'auto' chose.
    options: { casesFile, ...recordedOptions(settings), engine: engine.name },
    warnings: duplicateWarnings(selected),
    cases: [],
  };
  const found = new Map(selected.map((selection, at) => [selection.index, located[at]]));
  const entries = caseEntries(selected, directionsFor(settings));
  // A case whose implementation is missing has no runs: it is skipped.
  const slots = interleave(entries.length, settings.repeat).filter(({ entry }) => !found.get(entries[entry].index).reason);
  const total = slots.length;
  const states = entries.map(({ index }) => ({ runs: [], latency: null, latencyReason: null, unavailable: found.get(index).reason ?? null }));
  let ceilings = null;
  const summary = (entry) => summariseCase(entries[entry], states[entry], { parallel: settings.parallel, ceilings });
  // Set up before anything is said or measured: a machine that cannot make
  // the link says so first, as bad input.
  const link = settings.link && !signal?.aborted ? await setUpLink(settings.link) : null;
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
    for (const [position, { entry, repeat }] of slots.entries()) {
      if (signal?.aborted) break;
      const { index, direction, ...identity } = entries[entry];
      const state = states[entry];
      const where = { position: position + 1, total, repeat, repeats: settings.repeat };
      emit({ type: 'case-started', case: { index, ...identity, direction }, ...where });
      const runOptions = {
        index, direction, ...settings, latency: settings.latency && !state.latency, engine, key, found: found.get(index).found, link, remote, signal, emit,
      };
      const outcome = settings.maxLoss === null
        ? await runCase(identity, runOptions)
        : await bisectRate((rate) => runCase(identity, { ...runOptions, rate }), settings);
      const { latency, latencyReason, ...measured } = outcome;
      const runResult = { repeat, ...measured };
      state.runs.push(runResult);
      if (latency) state.latency = latency;
      if (latencyReason) state.latencyReason = latencyReason;
      if (runResult.status !== 'skipped') {
        emit({ type: 'case-finished', case: summary(entry), run: runResult, ...where, last: repeat === settings.repeat - 1 });
      }
    }
  } finally {
    await link?.tearDown();
  }
  result.cases = withRelative(entries.map((_, entry) => summary(entry)), referenceIndex);

  result.finishedAt = new Date().toISOString();
  result.wallSeconds = (performance.now() - started) / 1000;
  result.complete = !signal?.aborted;
  result.interrupted = signal?.aborted ? interruptName(signal.reason) : null;
  return result;
}

// A case from its runs so far: ok when any run was, failed when none was
// and one failed (with the last failure's reason), else skipped (its
// implementation is not installed, or the run was interrupted before it
// measured anything).
function summariseCase({ index, direction, ...identity }, { runs, latency, latencyReason, unavailable }, { parallel, ceilings }) {
  const ok = runs.some((run) => run.status === 'ok');
  const lastFailure = runs.findLast((run) => run.status === 'failed');
  const status = ok ? 'ok' : lastFailure ? 'failed' : 'skipped';
  const { sender, receiver, unstable } = summarise(runs);
  // A reference row's cipher is not ours: no ceiling to hold it against.
  const chainCeiling = ceilings && !identity.impl ? ceilingFor(ceilings, identity.presets) : null;
  const warnings = [];
  if (chainCeiling?.reason) warnings.push(`no cipher ceiling: ${chainCeiling.reason}`);
  if (ok && !latency && latencyReason) warnings.push(`no latency: ${latencyReason}`);
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
    cost: summariseCost(runs),
    wire: summariseWire(runs),
    udp: summariseUdp(runs),
    latency,
    ceiling: chainCeiling?.ceiling ? withEfficiency(chainCeiling.ceiling, receiver) : null,
    warnings,
  };
}

// On a link, the median share of the payload that the wire carried on top
// of it, over the ok runs; null without a link.
function summariseWire(runs) {
  const overheads = runs.map((run) => run.wire?.overhead).filter((value) => typeof value === 'number');
  return overheads.length === 0 ? null : { overhead: median(overheads) };
}

// With --relative-to, each case's median receiver bitrate as a multiple of
// the named case's in the same direction, as hyperfine puts one command
// against another: { to: index, ratio }, ratio null for the named case
// itself or when either measured nothing. null for every case without it.
function withRelative(cases, referenceIndex) {
  return cases.map((caseResult) => {
    if (referenceIndex === null) return { ...caseResult, relative: null };
    const reference = cases.find((other) => other.index === referenceIndex && other.direction === caseResult.direction);
    const measured = caseResult.receiver && reference?.receiver && caseResult !== reference;
    return { ...caseResult, relative: { to: referenceIndex, ratio: measured ? caseResult.receiver.bits_per_second / reference.receiver.bits_per_second : null } };
  });
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
const interruptName = (reason) => (reason === 'SIGINT' || reason === 'SIGTERM' ? reason : 'aborted');

async function loadCases({ casesFile, cases }) {
  if (cases !== undefined && casesFile !== undefined) throw inputError('give either cases or casesFile, not both');
  const file = cases === undefined ? resolveCasesFile(casesFile) : null;
  const loaded = file ? await loadCasesFile(file) : cases;
  const problems = validateCases(loaded);
  if (problems.length > 0) throw inputError(formatCaseProblems(file ?? 'given as cases', problems));
  return { casesFile: file, cases: loaded };
}
