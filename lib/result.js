// @ts-check
import { inputError } from './errors.js';

// The result object in one place (docs/result.md): its version, what a
// figure in it means, and the one way an older archived result becomes the
// current shape. The runner writes this shape; every reader (the reports,
// compare, run --baseline, the report command) goes through upgradeResult,
// so no printer has to know what an old file lacked.

// Bumped when a field is added, renamed or changes meaning; upgradeResult
// learns the step from the version before.
export const RESULT_VERSION = 8;

// A case whose receiver bitrate varies by more than this (sample standard
// deviation over mean) is marked unstable: its ranking may be luck.
export const UNSTABLE_CV = 0.1;

// A request run's load generator "may have squeezed" the row it measured
// when it took more than GENERATOR_SHARE_LIMIT of the machine's cores while
// less than IDLE_LIMIT was left idle: the relays had nowhere else to run.
export const GENERATOR_SHARE_LIMIT = 0.1;
export const IDLE_LIMIT = 0.1;
// A run is disturbed (a case's `disturbed`, docs/statistics.md) when other
// processes took more than DISTURBED_OTHERS of all cores' time while it
// measured, or the hypervisor more than DISTURBED_STEAL.
export const DISTURBED_OTHERS = 0.1;
export const DISTURBED_STEAL = 0.05;

// Enough of the shape to tell a result from some other JSON: cases[] of
// preset chains or reference rows, each with a status.
export function isResult(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    Array.isArray(value.cases) &&
    value.cases.every(
      (caseResult) =>
        (Array.isArray(caseResult?.presets) || typeof caseResult?.impl === 'string') &&
        typeof caseResult.status === 'string',
    )
  );
}

// Any result, archived by any version, in the current shape; a current one
// is returned as is. Results from before the version field (version 0)
// lack whatever was added since their day, version 1 what a case's transports negotiated;
// each missing field gets the value that means what that run did: one run
// a case, forward, nothing else measured (no cost, latency, ceiling, wire,
// relative, negotiated), no warnings, and null for what the file cannot
// tell (the mode, the engine).
/**
 * @param {any} result a result as archived by any version
 * @returns {import('./contracts.js').Result}
 */
export function upgradeResult(result) {
  if (result.resultVersion === RESULT_VERSION) return result;
  if (result.resultVersion > RESULT_VERSION) {
    throw inputError(
      `result version ${result.resultVersion} is newer than this cipherbench reads (${RESULT_VERSION}); read it with the cipherbench that wrote it (tool.version) or a later one`,
    );
  }
  // The renames come first, so that the older steps fill the current names.
  const renamed = {
    ...result,
    ...(result.options?.link ? { options: { ...result.options, link: camel(result.options.link, LINK) } } : {}),
    cases: result.cases.map((caseResult) => caseFrom7(caseFrom6(caseResult))),
  };
  if (result.resultVersion === 6 || result.resultVersion === 7) return { ...renamed, resultVersion: RESULT_VERSION };
  if (result.resultVersion === 5) return fromVersion5(renamed);
  return fromVersion5(fromVersion1(result.resultVersion >= 1 ? renamed : fromVersion0(renamed)));
}

// Version 8 follows the glossary's casing: the fields cipherbench makes
// are camelCase, where they were snake_case beside iperf3's (which keep
// iperf3's names: a UDP run's lost_percent, jitter_ms, lost_packets). Each
// table names one object's renames; an object already renamed, or a key
// not named, passes as it was, in its place.
const CEILING = {
  encrypt_bps: 'encryptBps',
  decrypt_bps: 'decryptBps',
  encrypt_min_bps: 'encryptMinBps',
  encrypt_max_bps: 'encryptMaxBps',
  decrypt_min_bps: 'decryptMinBps',
  decrypt_max_bps: 'decryptMaxBps',
};
const UDP = { offered_bps: 'offeredBps', loss_bound: 'lossBound', max_loss: 'maxLoss', over_bound: 'overBound' };
const RATE = { rate_bps: 'rateBps' };
const OFFERED = { offered_bps: 'offeredBps' };
// The link profile's jitter is ours (netem's), not iperf3's.
const LINK = { rate_bps: 'rateBps', delay_ms: 'delayMs', jitter_ms: 'jitterMs', loss_percent: 'lossPercent' };
const WIRE = { payload_bytes: 'payloadBytes' };
const LATENCY = { udp_rtt: 'udpRtt' };
// The UDP echo probe's share lost is ours: iperf3 never measured it.
const UDP_RTT = { lost_percent: 'lostPercent' };

function camel(object, names) {
  if (!object || typeof object !== 'object') return object;
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [names[key] ?? key, value]));
}

// A case's figures and each of its runs' carry the same objects.
function figuresFrom7(figures) {
  const renamed = { ...figures };
  if (figures.ceiling) renamed.ceiling = camel(figures.ceiling, CEILING);
  if (figures.wire) renamed.wire = camel(figures.wire, WIRE);
  if (figures.latency) {
    const latency = camel(figures.latency, LATENCY);
    renamed.latency = latency.udpRtt ? { ...latency, udpRtt: camel(latency.udpRtt, UDP_RTT) } : latency;
  }
  if (figures.udp) {
    const udp = camel(figures.udp, UDP);
    if (udp.maxLoss) {
      const maxLoss = camel(udp.maxLoss, RATE);
      udp.maxLoss = maxLoss.probes
        ? { ...maxLoss, probes: maxLoss.probes.map((probe) => camel(probe, RATE)) }
        : maxLoss;
    }
    if (udp.overBound) udp.overBound = camel(udp.overBound, OFFERED);
    renamed.udp = udp;
  }
  return renamed;
}

function caseFrom7(caseResult) {
  const renamed = figuresFrom7(caseResult);
  return caseResult.runs ? { ...renamed, runs: caseResult.runs.map(figuresFrom7) } : renamed;
}

// Version 7 follows the glossary (docs/glossary.md): a run of a case
// names its round `round`, which was `repeat`; what the relay client's
// transports negotiated is `negotiated`, which was `transport`, a name a
// reference row's own field has (Xray's `transport: 'ws'`), which the
// summary overwrote before: such a row of an older result has lost it.
// A current case, which upgradeCase also sees, comes back as it was.
function caseFrom6(caseResult) {
  if ('negotiated' in caseResult) return caseResult;
  const { transport, ...rest } = caseResult;
  const renamed = { ...rest, negotiated: transport ?? null };
  return caseResult.runs ? { ...renamed, runs: caseResult.runs.map(runFrom6) } : renamed;
}

function runFrom6(run) {
  const { repeat, transport, ...rest } = run;
  return { round: repeat, ...rest, ...(transport === undefined ? {} : { negotiated: transport }) };
}

// Version 6 names the workload the run measured (`workload`); before, the
// reports told it from the options --requests and --udp, which an older
// result has once upgraded to version 5 (false when its run predates them).
function fromVersion5(result) {
  const { requests, udp } = result.options;
  return {
    ...result,
    resultVersion: RESULT_VERSION,
    workload: result.workload ?? (requests ? 'requests' : udp ? 'udp' : 'bulk'),
  };
}

function fromVersion0(result) {
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
    // The request workload's and UDP's options: version 1's step, next,
    // fills them.
  });
  const { resultVersion, ...unversioned } = result;
  return {
    resultVersion: 1,
    ...unversioned,
    options,
    warnings: result.warnings ?? [],
    cases: result.cases.map((caseResult) => upgradeCaseFrom0(caseResult, options)),
  };
}

// Version 2 added rounds (a random order with its seed, intervals, the
// stopping rule, cost at a fixed rate), a case's transport and the request
// workload (`requests`, its options). A version 1 run was --repeat rounds
// in a fixed order; what it did not compute is null (its figures have no
// interval on file), and its relative ratio was a ratio of medians over
// unpaired runs, kept as it was. Version 3 added what the request
// workload's load generator cost (a case's requests.generator, null
// before); version 4 a case's disturbed runs (null before: an older run
// did not look); version 5 the UDP loss bound: a searched rate apart from
// an offered one (rateSearch: before, --max-loss alone asked for the
// search) and a case's udp.overBound (null before: a run without
// --max-loss had no bound). A version 2, 3 or 4 result takes the same
// step, which fills only what it lacks.
function fromVersion1(result) {
  return {
    ...result,
    resultVersion: 5,
    rounds: result.rounds ?? Math.max(0, ...result.cases.map((caseResult) => caseResult.runs.length)),
    stopped: result.stopped ?? null,
    noiseFloor: result.noiseFloor ?? null,
    options: withDefaults(result.options, {
      seed: null,
      confidence: null,
      maxRounds: null,
      maxTime: null,
      rate: null,
      noiseFloor: null,
      // Version 4: a disturbed run was not measured again before.
      remeasure: 0,
      // Version 5: before, only --max-loss searched the UDP rate.
      rateSearch:
        Boolean(result.options.udp) && result.options.maxLoss !== null && result.options.maxLoss !== undefined,
      // The request workload: an older run measured a bulk stream.
      requests: false,
      concurrency: null,
      responseSize: null,
      warmup: null,
      newConnections: false,
      // A run from before --udp measured TCP; no run took profiles before
      // --profile was recorded.
      udp: false,
      length: null,
      maxLoss: null,
      profile: null,
    }),
    cases: result.cases.map(upgradeCaseFrom1),
  };
}

// One case, as upgradeResult upgrades it (the live text report prints a
// case before its result is whole); a current case comes back equal.
// Each step only fills what is missing, so a newer case passes through both.
/**
 * @param {any} caseResult
 * @param {{ parallel?: number | null }} [options]
 * @returns {import('./contracts.js').CaseResult}
 */
export function upgradeCase(caseResult, options = {}) {
  return upgradeCaseFrom1(upgradeCaseFrom0(caseFrom7(caseFrom6(caseResult)), options));
}

function upgradeCaseFrom0(caseResult, { parallel = null } = {}) {
  const { status, reason, sender, receiver, wallSeconds } = caseResult;
  return withDefaults(
    { ...caseResult, sender: oneRunSide(sender), receiver: oneRunSide(receiver) },
    {
      direction: 'forward',
      parallel,
      // Before repeats a case was its one run; a skipped one had none.
      runs: status === 'skipped' ? [] : [{ round: 0, status, reason, sender, receiver, wallSeconds, cost: null }],
      unstable: false,
      cost: null,
      wire: null,
      negotiated: null,
      udp: null,
      latency: null,
      requests: null,
      ceiling: null,
      warnings: [],
      relative: null,
    },
  );
}

function upgradeCaseFrom1(caseResult) {
  const relative =
    caseResult.relative && withDefaults(caseResult.relative, { low: null, high: null, level: null, rounds: null });
  return withDefaults(
    {
      ...caseResult,
      sender: sideWithInterval(caseResult.sender),
      receiver: sideWithInterval(caseResult.receiver),
      relative,
      requests: caseResult.requests && withDefaults(caseResult.requests, { generator: null, opened: null }),
      udp: caseResult.udp && withDefaults(caseResult.udp, { overBound: null }),
      // The cipher ceiling bounds a TCP stream: beside a UDP row it is no
      // figure of what the row could carry (docs/udp.md).
      ceiling: caseResult.udp ? null : caseResult.ceiling,
    },
    { width: null, converged: null, negotiated: null, requests: null, disturbed: null },
  );
}

function sideWithInterval(side) {
  return side && withDefaults(side, { low: null, high: null, level: null, coverage: null });
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
