// @ts-check
import { UNSTABLE_CV, upgradeResult } from '../result.js';
import { roundsForLevel } from '../statistics/summaries.js';
import { unsteadyLegend } from './ceiling-text.js';
import { machineLoadText } from './machine-load.js';
import {
  againstCeilingNote,
  cannotTellFromAnchor,
  convergenceNote,
  disturbedHeadline,
  intervalText,
  isCostRanked,
  isRepeated,
  levelsText,
  overlapsAny,
  rankCases,
  rankNotes,
  rankRequests,
  relativeAnchor,
  smokeNote,
  warmupNote,
  withinNoiseAbove,
} from './ranking.js';
import { percent } from './ranking-columns.js';
import { sectionsOf } from './sections/index.js';
import { formatBitrate } from './units.js';

// What a report says of a result, worked out once: the ranking with each
// rank's marks, the cases not ranked, the notes and the legend under it,
// how the run ended and how busy the machine was. The text, Markdown and
// HTML printers lay this out, each in its own words for its own medium,
// and compute none of it again (hyperfine's exporters read one result the
// same way). Notes and marks are plain text; `tone` says how loud a note
// is ('plain', 'warn' or 'alarm'), for a printer that can colour it.
/**
 * @typedef {import('../contracts.js').CaseResult} CaseResult
 * @typedef {{ text: string, tone: 'plain' | 'warn' | 'alarm' }} Note
 * @typedef {{ mark: string, meaning: string }} LegendMark
 */
/**
 * What the text, Markdown and HTML reports say of one result.
 * @typedef {object} ViewModel
 * @property {import('../contracts.js').Result} result the result, upgraded to this version
 * @property {import('./sections/index.js').WorkloadSections} sections its workload's, by `result.workload`
 * @property {CaseResult[]} ranked measured cases in rank order (bitrate, or cost at a fixed rate)
 * @property {CaseResult[]} unranked failed and skipped cases, in run order
 * @property {CaseResult[]} overBound UDP rows that lost more than their bound
 * @property {CaseResult[]} requests the request workload's cases in rank order
 * @property {{ anchor: { index: number, label: string } | null, byCost: boolean, noiseFloor: import('../contracts.js').NoiseFloor | null | undefined }} basis what the ranks are read against
 * @property {{ caseResult: CaseResult, rank: number, marks: string[], convergence: string }[]} rows each ranked case with its marks
 * @property {number} measured how many cases measured something
 * @property {string} title
 * @property {string | null} interruption why the run is not complete; null when it is
 * @property {string} headline the disturbed ranking's warning, or ''
 * @property {string} machine how busy the machine was, or ''
 * @property {string} runNotes the smoke and warm-up sentences, or ''
 * @property {{ rankedBy: string, marks: LegendMark[], unsteady: LegendMark | null }} legend what the ranking's figures and marks mean
 * @property {Note[]} notes the notes under the ranking
 * @property {Note | null} unstable
 * @property {string | null} ending 'Done in 5.93s.', how an interrupted run ended, or null while it runs
 */

/**
 * @param {object} given a result of any version
 * @returns {ViewModel}
 */
export function reportView(given) {
  const result = upgradeResult(given);
  const { ranked, unranked, overBound } = rankCases(result);
  const requests = rankRequests(result);
  const basis = { anchor: relativeAnchor(result), byCost: isCostRanked(result), noiseFloor: result.noiseFloor };
  const measured = ranked.length + overBound.length + requests.length;
  const said = { smoke: smokeNote(result), warmup: warmupNote(result), machine: machineLoadText(result) };
  return {
    result,
    sections: sectionsOf(result.workload),
    ranked,
    unranked,
    overBound,
    requests,
    basis,
    rows: ranked.map((caseResult, position) => ({
      caseResult,
      rank: position + 1,
      marks: rankNotes(ranked, position, basis),
      convergence: convergenceNote(caseResult),
    })),
    measured,
    title: `cipherbench: ${measured} of ${result.cases.length} cases measured`,
    interruption: interruption(result),
    headline: disturbedHeadline([...ranked, ...requests]),
    machine: said.machine,
    runNotes: [said.smoke, said.warmup?.text].filter(Boolean).join(' '),
    legend: rankingLegend(ranked, basis),
    notes: rankingNotes(result, ranked, basis, said),
    unstable: unstableNote(ranked),
    ending: ending(result),
  };
}

// Why the run is not complete: run() records SIGINT, SIGTERM or SIGHUP,
// or 'aborted' when an API caller stopped it; null for a complete run.
function interruption({ complete, interrupted }) {
  if (complete) return null;
  return interrupted?.startsWith('SIG') ? `interrupted by ${interrupted}` : 'the run was cut short';
}

// How the run ended: a run stopped by a signal (or cut short by an API
// caller, or one archived before it could record either) is not done.
// Null while it runs (no wallSeconds yet).
function ending({ complete, interrupted, wallSeconds }) {
  if (typeof wallSeconds !== 'number') return null;
  const seconds = `${wallSeconds.toFixed(2)}s`;
  if (complete !== false) return `Done in ${seconds}.`;
  return interrupted?.startsWith('SIG')
    ? `Interrupted by ${interrupted} after ${seconds}.`
    : `Cut short after ${seconds}.`;
}

// What the ranking table's figures and marks mean, for the formats that
// print the table (Markdown, HTML): the sentence that says what ranks,
// then each mark a row may carry with its meaning, and the unsteady
// ceiling's, { mark, meaning } or null, when some efficiency is marked so.
function rankingLegend(ranked, { byCost, noiseFloor }) {
  const repeated = ranked.some(isRepeated);
  const by = byCost
    ? "Ranked by the relay pair's CPU seconds per GB at the offered rate, lowest first (saturated runs left out); cases without relays after, by"
    : 'Ranked by';
  const mark = (name, meaning) => ({ mark: name, meaning });
  return {
    rankedBy: `${by} the bitrate the receiving end got${repeated ? ', the median over runs' : ''}`,
    marks: [
      ...(repeated
        ? [
            mark('unstable', `the runs varied by more than ${percent(UNSTABLE_CV)} (cv), so the rank may be luck`),
            mark(
              'overlaps #N-#M',
              "its interval overlaps those of ranks N to M, above or below, so their order may be the noise's",
            ),
          ]
        : []),
      ...(noiseFloor
        ? [mark('within noise of #N', `closer to rank N than direct's own spread (cv ${percent(noiseFloor.cv)})`)]
        : []),
      mark('disturbed', 'other processes took the CPU it needed'),
      mark('cipher faster than #N', 'a case of the same chain ranked above it although its cipher alone is slower'),
    ],
    unsteady: unsteadyLegend(ranked),
  };
}

/**
 * @param {string | false | null | undefined} text
 * @param {Note['tone']} [tone]
 * @returns {Note[]}
 */
const note = (text, tone = 'plain') => (text ? [{ text, tone }] : []);
const counted = (count, one, many) => `${count} ${count === 1 ? one : many}`;

// Under the ranking: what the brackets are, which ranks the intervals do
// not separate, which cases the stopping rule gave up on, how the machine
// was, and the run's rounds and seed, so the order can be replayed.
function rankingNotes(result, ranked, basis, { smoke, warmup, machine }) {
  return [
    ...note(smoke, 'warn'),
    ...note(warmup?.text, warmup?.warn ? 'warn' : 'plain'),
    ...note(
      basis.byCost &&
        `Ranked by the relay pair's CPU seconds per GB at ${formatBitrate(result.options.rate)} offered, lowest first; runs that fell short of 97% of it (saturated) are left out of the cost.`,
    ),
    ...intervalNotes(ranked, basis.byCost),
    ...anchorNotes(result, ranked, basis.anchor),
    ...convergenceNotes(result, ranked),
    ...noiseFloorNotes(ranked, result.noiseFloor),
    ...ceilingNotes(ranked, result.noiseFloor),
    ...note(machine),
    ...note(
      result.options.seed !== null &&
        result.options.seed !== undefined &&
        result.rounds > 1 &&
        `${result.rounds} rounds in a random order, seed ${result.options.seed} (--seed ${result.options.seed} replays it).`,
    ),
  ];
}

// What the brackets are, and how many ranks they do not separate.
function intervalNotes(ranked, byCost) {
  const withInterval = ranked.filter((caseResult) => intervalText(caseResult.receiver));
  const overlapping = ranked.filter((_, position) => overlapsAny(ranked, position, byCost)).length;
  const level = withInterval[0]?.receiver.level;
  return [
    ...note(
      withInterval.length > 0 &&
        `[low-high]: the ${levelsText(withInterval.map((caseResult) => caseResult.receiver))} interval of the median receiver bitrate (docs/statistics.md); 'at N%' marks one that too few rounds give only at N% (${plainPercent(level)}, the level asked, needs ${roundsForLevel(level)}).`,
    ),
    ...note(
      overlapping > 0 &&
        `overlaps #N-#M: ${overlapping} ${overlapping === 1 ? "case's interval overlaps" : "cases' intervals overlap"} those of ranks N to M, above or below, so their order against those may be the noise's; a rank not named is apart.`,
      'warn',
    ),
  ];
}

// Which case the ratios are to, by the number the ranking prints, so a
// reader who typed a number or some text sees what it picked; and how many
// cases it cannot be told apart from.
function anchorNotes(result, ranked, anchor) {
  if (!anchor) return [];
  const named = result.options.relativeTo
    ? `, the case --relative-to ${JSON.stringify(result.options.relativeTo)} named`
    : '';
  const apart = ranked.filter(cannotTellFromAnchor).length;
  return [
    ...note(`N x: against Case ${anchor.index} (${anchor.label})${named}.`),
    ...note(
      apart > 0 &&
        `${counted(apart, 'case', 'cases')} cannot be told apart from ${anchor.label}: the interval of the paired ratio holds 1.00.`,
    ),
  ];
}

function convergenceNotes(result, ranked) {
  const unconverged = ranked.filter((caseResult) => caseResult.converged === false).length;
  if (unconverged === 0) return [];
  const { confidence } = result.options;
  const asked = confidence ? ` to ${plainPercent(confidence.level)} within ${plainPercent(confidence.width)}` : '';
  return note(
    `NOT CONVERGED: ${unconverged} of ${ranked.length} cases did not narrow${asked} in ${result.rounds} rounds (${result.stopped ?? 'stopped'}).`,
    'alarm',
  );
}

function noiseFloorNotes(ranked, noiseFloor) {
  if (!noiseFloor || ranked.length === 0) return [];
  const close = ranked.filter((_, position) => withinNoiseAbove(ranked, position, noiseFloor)).length;
  return [
    ...note(noiseFloorText(noiseFloor)),
    ...note(
      close > 0 &&
        `within noise of #N: ${counted(close, 'case is', 'cases are')} closer to the case ranked just above than that spread: run with --repeat 3 or more for intervals.`,
      'warn',
    ),
  ];
}

// The ranks their own ceilings contradict (the disturbed cases are
// counted in the machine's sentence, machine-load.js).
function ceilingNotes(ranked, noiseFloor) {
  const against = ranked.filter((_, position) => againstCeilingNote(ranked, position, noiseFloor)).length;
  return note(
    against > 0 &&
      `cipher faster than #N: ${counted(against, 'case ranks', 'cases rank')} below a case of the same chain whose cipher alone is the slower, by more than the noise: one of the two figures is not what the code does.`,
    'warn',
  );
}

// As hyperfine warns about outliers: the number is printed, but a reader
// should not trust its rank. Null when every rank is steady.
/** @returns {Note | null} */
function unstableNote(ranked) {
  const unstable = ranked.filter((caseResult) => caseResult.unstable).length;
  if (unstable === 0) return null;
  return {
    text: `UNSTABLE: the receiver bitrate of ${counted(unstable, 'case', 'cases')} varied by more than ${percent(UNSTABLE_CV)} between runs (cv), so ${unstable === 1 ? 'its rank' : 'their ranks'} may be luck; run with a higher --repeat on a quieter machine.`,
    tone: 'warn',
  };
}

// 'noise floor: direct varied by cv 4.2% over 3 runs of 1 s (median
// 10.1 Gbits/sec)': the machine's own spread, against which a difference
// between two ranks is to be read.
export function noiseFloorText(noiseFloor) {
  return `noise floor: direct (no relay) varied by cv ${percent(noiseFloor.cv)} over ${noiseFloor.runs} runs of ${noiseFloor.seconds} s (median ${formatBitrate(noiseFloor.bits_per_second)}); ranks closer than that may be the machine's.`;
}

// A level or width as a person typed it: '95%', '99.9%', '2.5%'.
function plainPercent(fraction) {
  return `${Number((fraction * 100).toPrecision(6))}%`;
}
