// @ts-check
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { caseLabel } from './case-label.js';
import { caseKey, compareResults } from './comparison.js';
import { environmentRows } from './environment-summary.js';
import { upgradeResult } from '../result.js';
import { readResultFile } from './result-file.js';
import { workloadOf } from './workload.js';

// Every archived run in a folder (reports/YYYY-MM-DD[-N].json), case by
// case over time, as asv and criterion show a benchmark's history. Runs of
// another machine or engine measure that as much as the code, and runs of
// another workload (TCP, UDP, requests; another rate, duration or number
// of streams: workload.js) measure another quantity, so each machine,
// engine and workload is a history of its own. A run cut short measured
// part of its cases under conditions it did not finish: it is listed apart,
// never a point of a trend. Each point's change from the run before it in
// its history is judged as `compare` judges two runs, unless the software
// under the relays changed between the two (softwareChanges): the point
// then says what changed instead of a verdict.

// Resolves with { runs: [{ file, result }] oldest first, problems: [{ file,
// message }] } where a problem is a file that could not be read (not JSON,
// not a result, a newer result version, unreadable): one line each, the
// rest still read.
export async function readArchivedRuns(dir) {
  let names;
  try {
    names = await readdir(dir);
  } catch (error) {
    return {
      runs: [],
      problems: [
        { file: dir, message: `cannot read ${dir}: ${error.code === 'ENOENT' ? 'no such folder' : error.message}` },
      ],
    };
  }
  const files = names
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => path.join(dir, name));
  const read = await Promise.all(
    files.map(async (file) => {
      try {
        return { file, result: await readResultFile(file) };
      } catch (error) {
        if (error.exitCode === undefined) throw error;
        return { file, message: error.message };
      }
    }),
  );
  const runs = read
    .filter((entry) => entry.result)
    .sort((a, b) => a.result.startedAt.localeCompare(b.result.startedAt));
  const problems = read.filter((entry) => entry.message).map(({ file, message }) => ({ file, message }));
  if (files.length === 0)
    problems.push({
      file: dir,
      message: `no archived runs (*.json) in ${dir}: cipherbench run archives one there each time (--out)`,
    });
  return { runs, problems };
}

// The history of `runs` (readArchivedRuns'): { machines: [{ machine,
// workload, kind, runs: [{ file, startedAt, complete, environment: [[name,
// value]] }], cases: [{ key, label, direction, points }] }], interrupted:
// [{ file, startedAt, machine, workload, reason }] }, where a point is one
// run of the case: { file, startedAt, status, median, min, max, runs,
// interval, change } in the workload's figure (median null when the run did
// not measure it; change null for the first point, else { deltaPercent,
// intervalPercent, p, verdict, regressed } from compareResults against the
// last run in the history that measured it; where the software changed
// between the two, verdict 'software-changed', regressed false and
// `changed`: ['Node.js 20.19.0 to 24.11.0', ...]).
/**
 * @param {{ file: string, result: any }[]} runs
 * @param {{ threshold?: number, strict?: boolean }} [options]
 */
export function buildHistory(runs, { threshold, strict = false } = {}) {
  const bySeries = new Map();
  const interrupted = [];
  for (const archived of runs) {
    const run = { ...archived, result: upgradeResult(archived.result) };
    const machine = machineOf(run.result);
    const workload = workloadOf(run.result);
    if (run.result.complete === false) {
      interrupted.push({
        file: run.file,
        startedAt: run.result.startedAt,
        machine,
        workload: workload.description,
        reason: run.result.interrupted ?? 'cut short',
      });
      continue;
    }
    const key = `${machine}\n${workload.description}`;
    if (!bySeries.has(key)) bySeries.set(key, { machine, workload, runs: [] });
    bySeries.get(key).runs.push(run);
  }
  return {
    machines: [...bySeries.values()].map((series) => machineHistory(series, { threshold, strict })),
    interrupted,
  };
}

// What makes two runs' figures comparable at all: the CPU, its cores, the
// engine that moved the bytes, and where the server half ran. Node.js and
// OpenSSL versions are what a history is often about, so they stay inside
// one history, shown on each run, and mark the point where they change.
function machineOf(result) {
  const { environment: env, options } = result;
  const remote = env.remote ? `, server on ${env.remote.destination}` : '';
  return `${env.cpu.model}, ${env.cpu.cores} cores, engine ${options.engine ?? 'iperf3'}${options.link ? `, link ${options.link.name ?? 'shaped'}` : ''}${remote}`;
}

function machineHistory({ machine, workload, runs }, rule) {
  const cases = new Map();
  // Each case's change is from the last run that measured it, which need
  // not be the run before (a --filter, a case added later); the comparison
  // of two runs is made once, whichever cases ask for it.
  const lastMeasured = new Map();
  const comparisons = new Map();
  const judged = (older, newer, key) => {
    const pair = `${older.file}\n${newer.file}`;
    if (!comparisons.has(pair))
      comparisons.set(pair, {
        rows: judgements(older.result, newer.result, rule),
        changed: softwareChanges(older.result, newer.result),
      });
    const { rows, changed } = comparisons.get(pair);
    const change = rows.get(key) ?? null;
    // A case that fails now has failed, whatever changed.
    if (!change || changed.length === 0 || change.verdict === 'failed') return change;
    return { ...change, verdict: 'software-changed', regressed: false, changed };
  };
  for (const run of runs) {
    const seen = new Set();
    for (const caseResult of run.result.cases) {
      const key = caseKey(caseResult);
      // The same case listed twice in one run: its first entry speaks for it.
      if (seen.has(key)) continue;
      seen.add(key);
      if (!cases.has(key))
        cases.set(key, { key, label: caseLabel(caseResult), direction: caseResult.direction, points: [] });
      const before = lastMeasured.get(key);
      const change = before && caseResult.status !== 'skipped' ? judged(before, run, key) : null;
      cases.get(key).points.push(point(run, caseResult, change, workload.figure));
      if (caseResult.status === 'ok') lastMeasured.set(key, run);
    }
  }
  return {
    machine,
    workload: workload.description,
    kind: workload.kind,
    runs: runs.map(({ file, result }) => ({
      file,
      startedAt: result.startedAt,
      complete: result.complete,
      environment: environmentRows(result),
    })),
    cases: [...cases.values()],
  };
}

// What our relays' figures rest on besides their code and the CPU: the
// Node.js and OpenSSL they run on (here, and on a --remote server host),
// and the program that loads every case. Between two runs where one
// changed, a change of a figure is that software's as much as the code's,
// and the direct runs do not see it: judged, a Node.js upgrade reads as
// "the machine changed" or as the code getting faster. A version one run
// does not record (an older result) is no change.
/** @type {[string, (result: any) => string | undefined][]} */
const SOFTWARE = [
  ['Node.js', ({ environment }) => environment.node?.node],
  ['OpenSSL', ({ environment }) => environment.node?.openssl],
  ["the server host's Node.js", ({ environment }) => environment.remote?.node?.node],
  ['iperf3', ({ environment, options }) => (options.engine === 'node' ? null : environment.iperf3?.version)],
  ['wrk', ({ environment }) => environment.wrk?.version],
];

function softwareChanges(older, newer) {
  return SOFTWARE.flatMap(([name, read]) => {
    const [before, after] = [read(older), read(newer)];
    return before && after && before !== after ? [`${name} ${before} to ${after}`] : [];
  });
}

function judgements(oldResult, newResult, rule) {
  const rows = compareResults(oldResult, newResult, { ...rule, intervals: 'when-significant' }).rows.filter(
    (row) => !['only-old', 'only-new', 'not-measured'].includes(row.verdict),
  );
  return new Map(
    rows.map((row) => [
      row.key,
      {
        deltaPercent: row.deltaPercent,
        intervalPercent: row.intervalPercent,
        p: row.p,
        verdict: row.verdict,
        regressed: row.regressed,
      },
    ]),
  );
}

function point({ file, result }, caseResult, change, figure) {
  const side = caseResult.status === 'ok' ? figure.summary(caseResult) : null;
  return {
    file,
    startedAt: result.startedAt,
    status: caseResult.status,
    median: side?.median ?? null,
    min: side?.min ?? null,
    max: side?.max ?? null,
    runs: caseResult.runs.filter((run) => run.status === 'ok').length,
    // A result that carries an interval for its median gives it here.
    interval: side && side.low !== null && side.high !== null ? { low: side.low, high: side.high } : null,
    change,
  };
}
