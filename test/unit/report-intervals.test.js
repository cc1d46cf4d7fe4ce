import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { formatRanking, formatTextReport } from '../../lib/report/text-report.js';
import { RESULT_VERSION, upgradeResult } from '../../lib/result.js';
import { medianInterval, summarise } from '../../lib/statistics/summaries.js';

// Intervals, paired ratios, overlapping ranks and the stopping rule as
// every report prints them, on a result made here the way the runner makes
// it: six rounds of three cases, the summaries from lib/statistics/summaries.js.
const fixture = JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));
const side = (bps) => ({ bytes: bps / 8, seconds: 1, bits_per_second: bps });
const run = (repeat, bps) => ({
  repeat,
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
  assert.match(ranking, / 1: Test Case 0, Bitrate=\[[^\]]+, 3\.01 Gbits\/sec \[2\.90-3\.10\]\], median of 6, /);
  assert.match(
    ranking,
    / 2: Test Case 1, Bitrate=\[[^\]]+ \[2\.80-3\.04\]\], median of 6, cv [\d.]+%, overlaps #1, 0\.97 x \[0\.95-1\.01\] ss-base \+ ss-aead-cipher\(aes-128-gcm\) \(cannot be told apart from ss-base \+ ss-aead-cipher\(aes-128-gcm\)\), /,
  );
  assert.match(
    ranking,
    / 3: Test Case 2, .*, 0\.34 x \[0\.32-0\.36\] ss-base \+ ss-aead-cipher\(aes-128-gcm\), ss-base/,
  );
  assert.doesNotMatch(ranking, /3: Test Case 2.*overlaps/);
  assert.match(
    ranking,
    /\n\[low-high\]: the 95% interval of the median receiver bitrate \(docs\/statistics.md\); 'at N%' marks one that too few rounds give only at N% \(95% needs 6\)\./,
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
  assert.match(html, /<span class="marker">overlaps #1<\/span>/);
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
  assert.doesNotMatch(ranking, / 2: Test Case 1, .*within noise/);
  assert.match(ranking, / 3: Test Case 2, Bitrate=\[[^\]]+\], within noise of #2, /);
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
  assert.match(formatHtmlReport(result), /<span class="marker">not converged: ±6\.1%<\/span>/);
});
