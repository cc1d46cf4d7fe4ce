import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { collectEnvironment } from './environment.js';
import { formatCaseProblems, loadCasesFile, resolveCasesFile, selectCases, validateCases } from './cases-file.js';
import { inputError } from './input-error.js';
import { findIperf3 } from './iperf3.js';
import { normalizeOptions } from './options.js';
import { assertPortsFree } from './ports.js';
import { runCase } from './run-case.js';

const { name, version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

// Runs every selected case and resolves with the result object of
// docs/result.md. Options (all optional):
//   casesFile    path of a cases file (default ./cases.js, else the bundled one)
//   cases        an array of preset chains instead of a file
//   duration     seconds per case, iperf3 -t (3)
//   parallel     iperf3 -P streams (1)
//   filter       a case index, or text that a case's JSON contains (null: all)
//   ports        { client, server, target } or "1081,1082,1083"
//   readyTimeout seconds a case's processes get to start listening (10)
//   iperf3Path   the iperf3 to run (default: the one on PATH)
//   signal       an AbortSignal: stops the case running, skips the rest and
//                records signal.reason ('SIGINT', 'SIGTERM') as interrupted
//   onEvent      called with { type: 'run-started', result, total },
//                { type: 'case-started', case, position, total },
//                { type: 'process-started', index, role, pid },
//                { type: 'case-finished', case, position, total }
//                where position counts the cases run, 1 to total, and role
//                is iperf3-server, relay-server, relay-client or iperf3-client
// Bad input (options, cases file, no iperf3, a busy port) rejects with an
// error whose exitCode is 2, before any process starts. A case that fails is
// recorded as failed and the run goes on. run() never prints or archives.
export async function run(options = {}) {
  const settings = normalizeOptions(options);
  const { casesFile, cases } = await loadCases(options);
  const selected = selectCases(cases, settings.filter);
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
    },
    cases: [],
  };
  const total = selected.length;
  emit({ type: 'run-started', result, total });

  // One password per run: the relays only ever talk to each other.
  const key = randomBytes(16).toString('base64url');
  for (const [position, { index, presets }] of selected.entries()) {
    if (signal?.aborted) {
      result.cases.push(notReached(index, presets));
      continue;
    }
    emit({ type: 'case-started', case: { index, presets }, position: position + 1, total });
    const outcome = await runCase(presets, { index, ...settings, iperf3, key, signal, emit });
    const caseResult = { index, presets, ...outcome };
    result.cases.push(caseResult);
    if (caseResult.status !== 'skipped') emit({ type: 'case-finished', case: caseResult, position: position + 1, total });
  }

  result.finishedAt = new Date().toISOString();
  result.wallSeconds = (performance.now() - started) / 1000;
  result.complete = !signal?.aborted;
  result.interrupted = signal?.aborted ? interruptName(signal.reason) : null;
  return result;
}

const notReached = (index, presets) => ({
  index, presets, status: 'skipped', reason: 'run interrupted', sender: null, receiver: null, wallSeconds: 0,
});

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
