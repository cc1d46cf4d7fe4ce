import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ceilingFor, measureChainCeilings } from './chain-ceilings.js';
import { collectEnvironment } from './environment.js';
import { formatCaseProblems, loadCasesFile, resolveCasesFile, selectCases, validateCases } from './cases-file.js';
import { inputError } from './input-error.js';
import { findIperf3 } from './iperf3.js';
import { normalizeOptions } from './options.js';
import { assertPortsFree } from './ports.js';
import { runCase } from './run-case.js';
import { caseEntries, directionsFor, interleave } from './schedule.js';
import { summarise, summariseCost } from './statistics.js';

const { name, version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

// Runs every selected case and resolves with the result object of
// docs/result.md. Options (all optional):
//   casesFile    path of a cases file (default ./cases.js, else the bundled one)
//   cases        an array of preset chains instead of a file
//   mode         'smoke' (1 s, once, the first 3 cases), 'default' or 'full'
//                (5 s, 3 repeats, latency); the options below override it
//   duration     seconds per run, iperf3 -t (3)
//   parallel     iperf3 -P streams (1)
//   repeat       runs of each case, interleaved: A B C A B C (1)
//   reverse      measure iperf3 -R only: iperf3 -s sends (false)
//   both         measure each case forward, then reverse (false)
//   latency      also time request/response round trips and connects
//                through the relays, in the first ok run of each case (false)
//   ceiling      measure each chain's cipher ceiling first (true)
//   filter       a case index, or text that a case's JSON contains (null: all)
//   ports        { client, server, target } or "1081,1082,1083"
//   readyTimeout seconds a run's processes get to start listening (10)
//   iperf3Path   the iperf3 to run (default: the one on PATH)
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
//                at the start, the case summarised so far at the end),
//                position counts the runs, 1 to total, repeat counts from 0,
//                last is true after the case's final repeat, and role is
//                iperf3-server, relay-server, relay-client, iperf3-client
//                or echo-target
// Bad input (options, cases file, no iperf3, a busy port) rejects with an
// error whose exitCode is 2, before any process starts. A run that fails is
// recorded as failed and the rest go on. run() never prints or archives.
export async function run(options = {}) {
  const settings = normalizeOptions(options);
  const { casesFile, cases } = await loadCases(options);
  const selected = selectCases(cases, settings.filter).slice(0, settings.caseLimit ?? undefined);
  const iperf3 = await findIperf3({ iperf3Path: options.iperf3Path });
  const { signal } = options;
  const emit = options.onEvent ?? (() => {});

  const startedAt = new Date();
  const started = performance.now();
  await assertPortsFree(settings.ports);
  const environment = await collectEnvironment({ iperf3Path: iperf3 });
  const result = {
    tool: { name, version },
    startedAt: startedAt.toISOString(),
    finishedAt: null,
    wallSeconds: null,
    complete: false,
    interrupted: null,
    environment,
    options: {
      casesFile,
      duration: settings.duration,
      parallel: settings.parallel,
      filter: settings.filter,
      ports: settings.ports,
      repeat: settings.repeat,
      mode: settings.mode,
      latency: settings.latency,
      reverse: settings.reverse,
      both: settings.both,
      ceiling: settings.ceiling,
    },
    cases: [],
  };
  const entries = caseEntries(selected, directionsFor(settings));
  const slots = interleave(entries.length, settings.repeat);
  const total = slots.length;
  emit({ type: 'run-started', result, total, cases: entries.length });

  const ceilings = settings.ceiling
    ? await measureChainCeilings(selected.map((selection) => selection.presets), {
      signal,
      onChain: (presets, position, count) => emit({ type: 'ceiling-started', presets, position, total: count }),
    })
    : null;

  // One password per run: the relays only ever talk to each other.
  const key = randomBytes(16).toString('base64url');
  const states = entries.map(() => ({ runs: [], latency: null, latencyReason: null }));
  const summary = (entry) => summariseCase(entries[entry], states[entry], { parallel: settings.parallel, ceilings });
  for (const [position, { entry, repeat }] of slots.entries()) {
    if (signal?.aborted) break;
    const { index, presets, direction } = entries[entry];
    const state = states[entry];
    const where = { position: position + 1, total, repeat, repeats: settings.repeat };
    emit({ type: 'case-started', case: { index, presets, direction }, ...where });
    const outcome = await runCase(presets, {
      index, direction, ...settings, latency: settings.latency && !state.latency, iperf3, key, signal, emit,
    });
    const { latency, latencyReason, ...measured } = outcome;
    const runResult = { repeat, ...measured };
    state.runs.push(runResult);
    if (latency) state.latency = latency;
    if (latencyReason) state.latencyReason = latencyReason;
    if (runResult.status !== 'skipped') {
      emit({ type: 'case-finished', case: summary(entry), run: runResult, ...where, last: repeat === settings.repeat - 1 });
    }
  }
  result.cases = entries.map((_, entry) => summary(entry));

  result.finishedAt = new Date().toISOString();
  result.wallSeconds = (performance.now() - started) / 1000;
  result.complete = !signal?.aborted;
  result.interrupted = signal?.aborted ? interruptName(signal.reason) : null;
  return result;
}

// A case from its runs so far: ok when any run was, failed when none was
// and one failed (with the last failure's reason), else skipped (the run
// was interrupted before it measured anything).
function summariseCase({ index, presets, direction }, { runs, latency, latencyReason }, { parallel, ceilings }) {
  const ok = runs.some((run) => run.status === 'ok');
  const lastFailure = runs.findLast((run) => run.status === 'failed');
  const status = ok ? 'ok' : lastFailure ? 'failed' : 'skipped';
  const { sender, receiver, unstable } = summarise(runs);
  const chainCeiling = ceilings ? ceilingFor(ceilings, presets) : null;
  const warnings = [];
  if (chainCeiling?.reason) warnings.push(`no cipher ceiling: ${chainCeiling.reason}`);
  if (ok && !latency && latencyReason) warnings.push(`no latency: ${latencyReason}`);
  return {
    index,
    presets,
    status,
    reason: ok ? null : lastFailure?.reason ?? 'run interrupted',
    direction,
    parallel,
    // A copy: the case an event carries must not grow with later runs.
    runs: [...runs],
    sender,
    receiver,
    unstable,
    wallSeconds: runs.reduce((sum, run) => sum + run.wallSeconds, 0),
    cost: summariseCost(runs),
    latency,
    ceiling: chainCeiling?.ceiling ? withEfficiency(chainCeiling.ceiling, receiver) : null,
    warnings,
  };
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
