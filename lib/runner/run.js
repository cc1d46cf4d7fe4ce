// @ts-check
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { measureChainCeilings } from '../ceiling/chain-ceilings.js';
import { inputError } from '../errors.js';
import { locatePeer, peerNote, peerVersion } from '../peers/index.js';
import { clearLeftovers } from '../process/child-ledger.js';
import { assertPortsFree } from '../process/ports.js';
import { findProgram } from '../process/programs.js';
import { RESULT_VERSION } from '../result.js';
import { bulkWorkload, workloadFor } from '../workload/index.js';
import { caseLedger } from './case-summary.js';
import {
  casesSource,
  duplicateWarnings,
  formatCaseProblems,
  loadCasesFile,
  resolveCasesFile,
  selectCases,
  selectAnchorCase,
  validateCases,
} from './cases-file.js';
import { collectEnvironment } from './environment.js';
import { setUpLink } from './link/namespaces.js';
import { measureNoiseFloor } from './noise-floor.js';
import { MIN_ROUNDS, normalizeOptions, recordedOptions } from './run-options.js';
import { connectRemote } from './remote/ssh.js';
import { measureRounds } from './rounds.js';
import { caseSlots, directionsFor } from './schedule.js';

const { name, version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

// Runs every selected case and resolves with the result of docs/result.md.
// Options (all optional): each entry of RUN_OPTIONS (options.js) by its
// name, with the CLI flag's meaning and default (the API also takes
// numbers for numbers, and ports as { client, server, target }), and:
//   casesFile    path of a cases file (default ./cases.js, else the bundled one)
//   cases        an array of cases (preset chains or reference rows)
//                instead of a file
//   iperf3Path   the iperf3 to run (default: the one on PATH); implies
//                engine 'iperf3'; wrkPath the same for wrk (--requests)
//   signal       an AbortSignal: stops the run in progress, skips the rest
//                and records signal.reason ('SIGINT', 'SIGTERM', 'SIGHUP')
//                as interrupted
//   onEvent      called with the events of docs/result.md ("Events"); from
//                run-started on, that event's result.cases holds every
//                case as measured so far (see interimResult below)
// Bad input (options, cases file, a program asked for but missing, a busy
// port) rejects with an error whose exitCode is 2, before any process
// starts. A run that fails is recorded as failed and the rest go on; a
// reference row whose implementation is not installed is skipped, saying
// how to install it. run() never prints or archives.
/** @returns {Promise<import('../contracts.js').Result>} */
export async function run(options = {}) {
  const plan = await planRun(options);
  const { settings, workload } = plan;
  const { signal } = options;
  /** @type {(event: import('../contracts.js').RunEvent) => void} */
  const emit = options.onEvent ?? (() => {});
  const started = performance.now();
  const { result, located, remote } = await startResult(plan);
  // Each run's CPU profiles in a folder of its own, named for its start.
  const profile = settings.profile && path.join(settings.profile, result.startedAt.replace(/[:.]/g, '-'));
  const slots = caseSlots(plan.selected, directionsFor(settings));
  // A case whose implementation is missing has no runs: it is skipped.
  const measurable = slots.map(({ index }) => !located.get(index).reason);
  const ledger = caseLedger({ slots, found: located, workload, settings, anchorIndex: plan.anchorIndex });
  const rounds = roundBounds(settings);
  // Set up before anything is said or measured: a machine that cannot make
  // the link says so first, as bad input.
  const link = settings.link && !signal?.aborted ? await setUpLink(settings.link) : null;
  // Kept current as each run ends, so a caller that must stop before run()
  // returns (a second Ctrl-C) can still write every case measured so far.
  let done = { rounds: 0, stopped: null };
  const measuredSoFar = (sofar = done) => Object.assign(result, { cases: ledger.all(), rounds: sofar.rounds });
  measuredSoFar();
  try {
    emit({ type: 'run-started', result, total: rounds.min * measurable.filter(Boolean).length, cases: slots.length });
    const context = { workload, engine: plan.engine, key: runKey(), located, link, remote, profile, signal, emit };
    if (settings.ceiling) ledger.setCeilings(await measureCeilings(plan.selected, context));
    result.noiseFloor = await noiseFloor(plan, measurable, context, options);
    done = await measureRounds({
      slots,
      measurable,
      ledger,
      settings,
      context,
      rounds,
      started,
      onRun: measuredSoFar,
    });
  } finally {
    await link?.tearDown();
  }
  measuredSoFar(done);
  const interrupted = signal?.aborted ? interruptName(signal.reason) : null;
  const finished = { finishedAt: new Date().toISOString(), wallSeconds: (performance.now() - started) / 1000 };
  return Object.assign(result, { stopped: done.stopped, ...finished, complete: !interrupted, interrupted });
}

// One password per run: the relays only ever talk to each other. Hex, as
// base64url may start with '-', which another relay's command line
// (ssserver -k -x...) would take for an option.
const runKey = () => randomBytes(16).toString('hex');

// Everything a run needs to know before it starts anything, bad input
// thrown as such: the settings, the cases and those selected, the case
// ratios are taken against (the anchor), the workload and what measures it.
async function planRun(options) {
  const settings = normalizeOptions(options);
  const { casesFile, cases } = await loadCases(options);
  const selected = selectCases(cases, settings.filter).slice(0, settings.caseLimit ?? undefined);
  const anchorIndex = settings.relativeTo === null ? null : selectAnchorCase(cases, selected, settings.relativeTo);
  const workload = workloadFor(settings);
  const engine = await workload.chooseEngine({
    engine: settings.engine,
    iperf3Path: options.iperf3Path,
    wrkPath: options.wrkPath,
    cases: selected,
  });
  await workload.check(selected, settings, engine);
  return { settings, casesFile, selected, anchorIndex, workload, engine };
}

// The result's skeleton (docs/result.md), with the machine it runs on,
// and what the run found: each case's implementation, the remote host.
// What an earlier run that was killed outright left running (its iperf3
// -s on our port) is ended first, and the report says so. On a link every
// process runs in namespaces made for this run, where the machine's own
// ports are no one's; with --remote only the relay client listens here,
// the relay server and the target listen there.
async function startResult({ settings, casesFile, selected, workload, engine }) {
  const startedAt = new Date();
  const leftovers = await clearLeftovers();
  if (!settings.link) await assertPortsFree(settings.remote ? { client: settings.ports.client } : settings.ports);
  // The iperf3 here is described even when another engine measures, as a
  // reader comparing two reports will want to know.
  const iperf3Path = engine.name === 'iperf3' ? engine.path : await findProgram('iperf3');
  const [environment, located, remote, source] = await Promise.all([
    collectEnvironment({ iperf3Path, wrkPath: engine.name === 'wrk' ? engine.path : null }),
    Promise.all(selected.map((identity) => locatePeer(identity))),
    settings.remote ? connectRemote({ ...settings.remote, version }) : null,
    casesSource(casesFile),
  ]);
  const peers = await peerVersions(selected, located);
  if (peers) environment.peers = peers;
  // The server's host speaks for itself: its own machine, OS and Node.
  if (remote)
    environment.remote = { destination: remote.destination, address: remote.serverAddress, ...remote.environment };
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
    workload: workload.name,
    // The engine that measured, after 'auto' chose.
    options: { casesFile, casesSource: source, ...recordedOptions(settings), engine: engine.name },
    warnings: [
      ...leftovers.map(
        ({ pid, command }) =>
          `ended pid ${pid} (${command}), left running by an earlier cipherbench run that was killed`,
      ),
      ...duplicateWarnings(selected),
      ...new Set(selected.map(peerNote).filter(Boolean)),
      ...(settings.requests && engine.reason
        ? [
            `the built-in Node client loads every case, not wrk: ${engine.reason}; its own CPU may squeeze the rows (docs/requests.md)`,
          ]
        : []),
    ],
    cases: [],
  };
  return { result, located: new Map(selected.map((identity, at) => [identity.index, located[at]])), remote };
}

// Without the stopping rule a run is --repeat rounds; with it, at least
// MIN_ROUNDS and at most --max-rounds.
function roundBounds({ confidence, repeat, maxRounds }) {
  const min = confidence ? Math.max(repeat, MIN_ROUNDS) : repeat;
  return { min, max: confidence ? Math.max(maxRounds, min) : repeat };
}

// The cipher ceilings of the run's chains (a reference row's cipher is not
// ours), each announced as it starts.
function measureCeilings(selected, { signal, emit }) {
  return measureChainCeilings(
    selected.filter((identity) => !identity.impl).map((identity) => identity.presets),
    {
      signal,
      onChain: (presets, position, count) => emit({ type: 'ceiling-started', presets, position, total: count }),
    },
  );
}

// Wherever there is a ranking to judge against it (two cases or more), the
// machine's own spread (noise-floor.js). The direct runs move bulk TCP
// whatever the workload: their spread is the machine's, which a request
// rate or a UDP bitrate shares; an engine that starts no server of its own
// (a request engine) moves no stream, so the floor takes the bulk engine
// then (iperf3 when installed, else the built-in one).
async function noiseFloor({ settings, engine }, measurable, context, options) {
  if (settings.noiseFloor === 0 || measurable.filter(Boolean).length < 2 || context.signal?.aborted) return null;
  context.emit({ type: 'noise-floor-started', runs: settings.noiseFloor });
  const bulkEngine = engine.server
    ? engine
    : await bulkWorkload.chooseEngine({ engine: 'auto', iperf3Path: options.iperf3Path });
  const noiseFloor = await measureNoiseFloor(settings.noiseFloor, {
    settings,
    context: { ...context, workload: bulkWorkload, engine: bulkEngine },
  });
  context.emit({ type: 'noise-floor-finished', noiseFloor });
  return noiseFloor;
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
    wallSeconds: (finishedAt.getTime() - Date.parse(result.startedAt)) / 1000,
    complete: false,
    interrupted: interruptName(reason),
  };
}

// { impl: version } of each implementation the cases run that says its
// version (one call a program, not a case), or null when none does.
async function peerVersions(selected, located) {
  const seen = new Map();
  selected.forEach((identity, at) => {
    if (identity.impl && located[at].found && !seen.has(identity.impl))
      seen.set(identity.impl, peerVersion(identity, located[at].found));
  });
  const said = (await Promise.all(seen.values())).filter((peer) => peer?.version);
  return said.length === 0 ? null : Object.fromEntries(said.map(({ impl, version }) => [impl, version]));
}
