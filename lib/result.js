import { inputError } from './errors.js';

// The result object in one place (docs/result.md): its version, what a
// figure in it means, and the one way an older archived result becomes the
// current shape. The runner writes this shape; every reader (the reports,
// compare, run --baseline, the report command) goes through upgradeResult,
// so no printer has to know what an old file lacked.

// Bumped when a field is added, renamed or changes meaning; upgradeResult
// learns the step from the version before.
export const RESULT_VERSION = 1;

// A case whose receiver bitrate varies by more than this (sample standard
// deviation over mean) is marked unstable: its ranking may be luck.
export const UNSTABLE_CV = 0.10;

// Enough of the shape to tell a result from some other JSON: cases[] of
// preset chains or reference rows, each with a status.
export function isResult(value) {
  return value !== null && typeof value === 'object' && Array.isArray(value.cases)
    && value.cases.every((caseResult) => (Array.isArray(caseResult?.presets) || typeof caseResult?.impl === 'string')
      && typeof caseResult.status === 'string');
}

// Any result, archived by any version, in the current shape; a current one
// is returned as is. Results from before the version field (version 0)
// lack whatever was added since their day; each missing field gets the
// value that means what that run did: one run a case, forward, nothing
// else measured (no cost, latency, ceiling, wire, relative), no warnings,
// and null for what the file cannot tell (the mode, the engine).
export function upgradeResult(result) {
  if (result.resultVersion === RESULT_VERSION) return result;
  if (result.resultVersion > RESULT_VERSION) {
    throw inputError(`result version ${result.resultVersion} is newer than this cipherbench reads (${RESULT_VERSION}); read it with the cipherbench that wrote it (tool.version) or a later one`);
  }
  const options = withDefaults(result.options, {
    repeat: 1,
    mode: null,
    latency: false,
    reverse: false,
    both: false,
    ceiling: result.cases.some((caseResult) => caseResult.ceiling),
    engine: null,
    relativeTo: null,
    link: null,
    remote: null,
    udp: false,
    rate: null,
    length: null,
    maxLoss: null,
  });
  return {
    resultVersion: RESULT_VERSION,
    ...result,
    options,
    warnings: result.warnings ?? [],
    cases: result.cases.map((caseResult) => upgradeCase(caseResult, options)),
  };
}

// One case, as upgradeResult upgrades it (the live text report prints a
// case before its result is whole); a current case comes back equal.
export function upgradeCase(caseResult, { parallel = null } = {}) {
  const { status, reason, sender, receiver, wallSeconds } = caseResult;
  return withDefaults({ ...caseResult, sender: oneRunSide(sender), receiver: oneRunSide(receiver) }, {
    direction: 'forward',
    parallel,
    // Before repeats a case was its one run; a skipped one had none.
    runs: status === 'skipped' ? [] : [{ repeat: 0, status, reason, sender, receiver, wallSeconds, cost: null }],
    unstable: false,
    cost: null,
    wire: null,
    udp: null,
    latency: null,
    ceiling: null,
    warnings: [],
    relative: null,
  });
}

// A side measured once is its own median, minimum and maximum.
function oneRunSide(side) {
  if (!side) return null;
  return withDefaults(side, { min: side.bits_per_second, max: side.bits_per_second, cv: 0 });
}

// What is missing (absent, undefined or null) takes its default.
function withDefaults(given, defaults) {
  const filled = { ...given };
  for (const [key, value] of Object.entries(defaults)) filled[key] ??= value;
  return filled;
}
