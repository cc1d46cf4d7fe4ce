import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { overlapText, rankNote } from '../../lib/report/ranking.js';
import { formatRanking, formatTextReport } from '../../lib/report/text-report.js';
import { RESULT_VERSION, upgradeResult } from '../../lib/result.js';
import { medianInterval, summarise } from '../../lib/statistics/summaries.js';

// Intervals, paired ratios, overlapping ranks and the stopping rule as
// every report prints them, on a result made here the way the runner makes
// it: six rounds of three cases, the summaries from lib/statistics/summaries.js.
const fixture = JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));
const side = (bps) => ({ bytes: bps / 8, seconds: 1, bits_per_second: bps });
const run = (round, bps) => ({
  round,
  status: 'ok',
  reason: null,
  sender: side(bps),
  receiver: side(bps),
  wallSeconds: 1.5,
  cost: null,
});

function caseOf(index, method, bitrates, extra = {}) {
  const runs = bitrates.map((bps, round) => run(round, bps));
  const { sender, receiver, unstable } = summarise(runs);
  return {
    index,
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }],
    status: 'ok',
    reason: null,
    direction: 'forward',
    parallel: 1,
    runs,
    sender,
    receiver,
    unstable,
    wallSeconds: 9,
    cost: null,
    wire: null,
    latency: null,
    ceiling: null,
    relative: null,
    warnings: [],
    width: null,
    converged: null,
    ...extra,
  };
}

function resultOf(cases, options = {}) {
  const upgraded = upgradeResult(fixture);
  return {
    ...upgraded,
    resultVersion: RESULT_VERSION,
    rounds: 6,
    stopped: null,
    noiseFloor: null,
    options: { ...upgraded.options, repeat: 6, seed: 7, ...options },
    cases,
  };
}

test('six rounds: every figure with its 95% interval; overlapping ranks marked; a ratio holding 1.00 cannot be told apart', () => {
  const fast = caseOf(0, 'aes-128-gcm', [3.0e9, 3.1e9, 2.9e9, 3.05e9, 2.95e9, 3.02e9]);
  const close = caseOf(1, 'aes-256-gcm', [2.9e9, 3.0e9, 2.8e9, 2.95e9, 2.85e9, 3.04e9], {
    relative: { to: 0, ratio: 0.97, low: 0.95, high: 1.01, level: 0.95, rounds: 6 },
  });
  const slow = caseOf(2, 'chacha20-ietf-poly1305', [1.0e9, 1.1e9, 0.9e9, 1.05e9, 0.95e9, 1.02e9], {
    relative: { to: 0, ratio: 0.34, low: 0.32, high: 0.36, level: 0.95, rounds: 6 },
  });
  fast.relative = { to: 0, ratio: null, low: null, high: null, level: 0.95, rounds: 0 };
  const result = resultOf([fast, close, slow], { relativeTo: '0' });
  assert.deepEqual(
    [fast.receiver.low, fast.receiver.high, fast.receiver.coverage],
    [2.9e9, 3.1e9, medianInterval([1, 2, 3, 4, 5, 6]).coverage],
  );

  const ranking = formatRanking(result);
  // Ranks 1 and 2 overlap: each row names the other.
  assert.match(
    ranking,
    / 1: Case 0, Bitrate=\[[^\]]+, 3\.01 Gbits\/sec \[2\.90-3\.10\]\], median of 6, cv [\d.]+%, overlaps #2, /,
  );
  assert.match(
    ranking,
    / 2: Case 1, Bitrate=\[[^\]]+ \[2\.80-3\.04\]\], median of 6, cv [\d.]+%, overlaps #1, 0\.97 x \[0\.95-1\.01\] ss-base \+ ss-aead-cipher\(aes-128-gcm\) \(cannot be told apart from ss-base \+ ss-aead-cipher\(aes-128-gcm\)\), /,
  );
  assert.match(ranking, / 3: Case 2, .*, 0\.34 x \[0\.32-0\.36\] ss-base \+ ss-aead-cipher\(aes-128-gcm\), ss-base/);
  assert.doesNotMatch(ranking, /3: Case 2.*overlaps/);
  assert.match(
    ranking,
    /\n\[low-high\]: the 95% interval of the median receiver bitrate \(docs\/statistics.md\); 'at N%' marks one that too few rounds give only at N% \(95%, the level asked, needs 6\)\./,
  );
  assert.match(
    ranking,
    /\n1 case cannot be told apart from ss-base \+ ss-aead-cipher\(aes-128-gcm\): the interval of the paired ratio holds 1\.00\./,
  );
  assert.match(ranking, /\n6 rounds in a random order, seed 7 \(--seed 7 replays it\)\./);
  assert.match(formatTextReport(result), /receiver  median 3\.01 Gbits\/sec \[2\.90-3\.10\]  min 2\.90  max 3\.10/);

  const markdown = formatMarkdownReport(result);
  assert.match(markdown, /\| Receiver \[95% interval\] \|/);
  assert.match(
    markdown,
    /\*\*2\.92 Gbits\/sec \[2\.80-3\.04\]\*\* \*\*overlaps #1\*\* \| 0\.97 x \[0\.95-1\.01\] \*\*cannot tell apart\*\* \|/,
  );

  const html = formatHtmlReport(result);
  // Error bars are the interval, not min..max.
  assert.match(
    html,
    /<g class="whisker receiver" data-case="0" [^>]*data-min="2900000000" data-max="3100000000" data-low="2900000000" data-high="3100000000" data-level="0\.95">/,
  );
  assert.match(html, /error bar: its 95% interval/);
  assert.match(html, /<span class="marker"><span class="mark">overlaps #1<\/span><\/span>/);
  assert.match(html, /<span class="marker"><span class="mark">overlaps #2<\/span><\/span>/);
});

// The default run: 3 rounds, so every interval is min..max at 75 %,
// whatever level was asked; an interval overlaps ranks below it as well
// as above, and each row names every rank it cannot be told from.
test('three rounds: headers say 75%, and each row names the ranks it overlaps as a range', () => {
  const cases = [
    caseOf(0, 'aes-128-gcm', [10.0e9, 10.4e9, 9.6e9]),
    caseOf(1, 'aes-192-gcm', [9.5e9, 9.7e9, 9.9e9]),
    caseOf(2, 'aes-256-gcm', [9.0e9, 9.2e9, 9.8e9]),
    caseOf(3, 'chacha20-ietf-poly1305', [8.9e9, 8.8e9, 9.1e9]),
    caseOf(4, 'aes-128-ctr', [5e9, 5.1e9, 4.9e9]),
  ];
  const result = { ...resultOf(cases, { repeat: 3 }), rounds: 3 };
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((position) => rankNote(cases, position)),
    ['overlaps #2-#3', 'overlaps #1-#3', 'overlaps #1-#4', 'overlaps #3', ''],
  );
  // Ranks apart from a row are left out of its range.
  assert.equal(overlapText([1, 4], 2), 'overlaps #1 and #4');
  assert.equal(overlapText([1, 3, 5, 6], 4), 'overlaps #1 and #3-#6');
  const ranking = formatRanking(result);
  assert.match(
    ranking,
    / 3: Case 2, Bitrate=\[[^\]]+ \[9\.00-9\.80 at 75%\]\], median of 3, cv [\d.]+%, overlaps #1-#4, /,
  );
  assert.match(ranking, /\n\[low-high\]: the 75% interval of the median receiver bitrate /);
  assert.match(formatMarkdownReport(result), /\| Receiver \[75% interval\] \|/);
  assert.doesNotMatch(formatMarkdownReport(result), /95% interval/);
  const html = formatHtmlReport(result);
  assert.match(html, /<th class="number">Receiver \[75% interval\]<\/th>/);
  assert.match(html, /error bar: its 75% interval/);
  // A case with more rounds beside them: the header gives the range.
  cases[0] = caseOf(0, 'aes-128-gcm', [10.0e9, 10.4e9, 9.6e9, 10.1e9, 10.2e9, 9.9e9]);
  assert.match(formatMarkdownReport({ ...result, cases }), /\| Receiver \[75%-95% interval\] \|/);
});

test('disturbed cases: the ranking says so above its rows, in every format, and on each disturbed row', () => {
  const disturbed = { runs: 3, of: 3, reason: "other processes took 34% of the machine's CPU (limit 10%)" };
  const cases = [
    caseOf(0, 'aes-192-gcm', [9.0e9, 8.78e9, 10.02e9], { disturbed }),
    caseOf(1, 'aes-128-gcm', [6.13e9, 5.88e9, 7.56e9], { disturbed: { ...disturbed, runs: 1 } }),
  ];
  const result = { ...resultOf(cases, { repeat: 3 }), rounds: 3 };
  const headline =
    'DISTURBED: 2 of 2 ranked cases were measured while other processes took the CPU they needed: this order is not a ranking, whatever the intervals say; measure again on a quieter machine.';
  const ranking = formatRanking(result);
  assert.ok(ranking.startsWith(`(ranking):\n\n${headline}\n\n 1: Case 0, `), ranking);
  assert.match(ranking, / 1: Case 0, [^\n]*, disturbed in 3 of 3 runs, /);
  assert.match(ranking, / 2: Case 1, [^\n]*, disturbed in 1 of 3 runs, /);
  const markdown = formatMarkdownReport(result);
  assert.ok(markdown.indexOf(`**${headline}**\n\n| # |`) !== -1, markdown);
  assert.equal((markdown.match(/\*\*disturbed in \d of 3 runs\*\*/g) ?? []).length, 2);
  const html = formatHtmlReport(result);
  assert.ok(html.includes(`<h2>Ranking</h2>\n<p class="warning">${headline}</p>\n<div class="scroll">`));
  // One of them only: the ranks marked are not an order.
  cases[1] = { ...cases[1], disturbed: null };
  assert.match(
    formatRanking({ ...result, cases }),
    /\(ranking\):\n\nDISTURBED: 1 of 2 ranked cases were measured while other processes took the CPU they needed: the rank marked disturbed is not an order, /,
  );
  // None: nothing above the rows.
  assert.ok(formatRanking(resultOf([cases[1]])).startsWith('(ranking):\n\n 1: '));
});

test("one round with a noise floor: ranks closer than the machine's own spread are marked", () => {
  const result = {
    ...resultOf(
      [caseOf(0, 'aes-256-ctr', [3.35e9]), caseOf(1, 'aes-192-ctr', [2.88e9]), caseOf(2, 'aes-128-ctr', [2.61e9])],
      { repeat: 1 },
    ),
    rounds: 1,
    noiseFloor: { runs: 3, seconds: 1, cv: 0.12, bits_per_second: 20e9, values: [18e9, 20e9, 23e9] },
  };
  const ranking = formatRanking(result);
  // 3.35 -> 2.88 is 14 % apart, beyond 12 %; 2.88 -> 2.61 is 9 %, within it.
  assert.doesNotMatch(ranking, / 2: Case 1, .*within noise/);
  assert.match(ranking, / 3: Case 2, Bitrate=\[[^\]]+\], within noise of #2, /);
  assert.match(
    ranking,
    /\nnoise floor: direct \(no relay\) varied by cv 12\.0% over 3 runs of 1 s \(median 20\.0 Gbits\/sec\); ranks closer than that may be the machine's\./,
  );
  assert.match(ranking, /\nwithin noise of #N: 1 case is closer to the case ranked just above than that spread/);
  assert.match(formatMarkdownReport(result), /\*\*within noise of #2\*\*/);
});

test('a case the stopping rule gave up on is flagged in text, Markdown and HTML', () => {
  const wide = caseOf(0, 'aes-128-gcm', [2e9, 3e9, 2.5e9, 2.2e9, 2.8e9, 2.4e9], { width: 0.122, converged: false });
  const result = {
    ...resultOf([wide], { confidence: { level: 0.95, width: 0.05 }, maxRounds: 6 }),
    stopped: 'max-rounds',
  };
  assert.match(formatRanking(result), /not converged: ±6\.1%/);
  assert.match(
    formatRanking(result),
    /NOT CONVERGED: 1 of 1 cases did not narrow to 95% within 5% in 6 rounds \(max-rounds\)\./,
  );
  assert.match(formatTextReport(result), /receiver  median .*  not converged: ±6\.1%/);
  assert.match(formatMarkdownReport(result), /\*\*not converged: ±6\.1%\*\*/);
  assert.match(
    formatHtmlReport(result),
    /<span class="marker"><span class="mark">not converged: ±6\.1%<\/span><\/span>/,
  );
});
