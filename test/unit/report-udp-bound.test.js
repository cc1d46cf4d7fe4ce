import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { upgradeResult } from '../../lib/result.js';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatJsonReport } from '../../lib/report/json-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { rankCases } from '../../lib/report/ranking.js';
import { formatCaseBlock, formatRanking } from '../../lib/report/text-report.js';
import { workloadOf } from '../../lib/report/workload.js';
import { summariseUdp } from '../../lib/workload/udp.js';

const fixture = () => JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));

// A UDP run at a fixed 1 Gbit/s: case 0 kept within the 1% bound, case 1
// lost 85.2% and got more through than case 0 did. As the runner writes
// them, neither has a cipher ceiling (docs/udp.md).
function fixedRateResult() {
  const result = upgradeResult(fixture());
  result.workload = 'udp';
  result.options = {
    ...result.options,
    repeat: 1,
    udp: true,
    rate: 1e9,
    length: 1200,
    maxLoss: 1,
    rateSearch: false,
    ceiling: false,
  };
  const udp = (lost, overBound) => ({
    offeredBps: 1e9,
    length: 1200,
    packets: 10000,
    lost_packets: lost * 100,
    lost_percent: lost,
    jitter_ms: 0.1,
    out_of_order: 0,
    maxLoss: null,
    overBound,
  });
  const [within, over] = result.cases.filter((caseResult) => caseResult.direction === 'forward');
  within.udp = udp(0.5, null);
  over.udp = udp(85.2, { percent: 1, runs: 1, of: 1, lost_percent: 85.2, offeredBps: 1e9, searched: false });
  over.receiver = { ...over.receiver, bits_per_second: within.receiver.bits_per_second * 1.2 };
  result.cases = [within, over].map((caseResult) => ({ ...caseResult, ceiling: null, relative: null }));
  return result;
}

const LINE = 'lost 85.2% at 1.00 Gbits/sec, above the 1% bound: not ranked';

test('a UDP row that lost more than its bound is not ranked by what got through, in every report', () => {
  const result = fixedRateResult();
  const { ranked, overBound } = rankCases(result);
  assert.deepEqual(
    ranked.map((caseResult) => caseResult.index),
    [0],
  );
  assert.deepEqual(
    overBound.map((caseResult) => caseResult.index),
    [1],
  );

  const text = formatRanking(result);
  assert.match(text, /^ 1: Case 0,/m);
  assert.doesNotMatch(text, /^ 2: /m);
  assert.match(text, /\(not ranked\):\n\n +Case 1, lost 85\.2% at 1\.00 Gbits\/sec, above the 1% bound: not ranked, /);
  assert.match(formatCaseBlock(result.cases[1]), new RegExp(`^loss bound +${LINE}$`, 'm'));
  assert.doesNotMatch(formatCaseBlock(result.cases[1]), /efficiency|ceiling/);

  const markdown = formatMarkdownReport(result);
  assert.match(markdown, /^### cipherbench: 2 of 2 cases measured$/m);
  assert.match(markdown, new RegExp(`^Not ranked:\\n\\n- Case 1 \`[^\`]+\`: ${LINE}$`, 'm'));
  assert.doesNotMatch(markdown, /Efficiency/);
  assert.equal(
    markdown.split('\n').filter((line) => /^\| \d+ \| 1 \|/.test(line)).length,
    0,
    'no ranking row for case 1',
  );

  const html = formatHtmlReport(result);
  assert.match(
    html,
    new RegExp(`<section id="not-ranked">\\n<h2>Not ranked</h2>\\n<ul>\\n<li>Case 1 <code>[^<]+</code>: ${LINE}</li>`),
  );
  assert.doesNotMatch(html, /Efficiency/);

  assert.deepEqual(JSON.parse(formatJsonReport(result)).cases[1].udp.overBound, {
    percent: 1,
    runs: 1,
    of: 1,
    lost_percent: 85.2,
    offeredBps: 1e9,
    searched: false,
  });
});

test('a search where no probe passed, and a row over the bound in some runs only, say so', () => {
  const result = fixedRateResult();
  result.cases[1].udp.overBound = {
    percent: 1,
    runs: 2,
    of: 3,
    lost_percent: 12.5,
    offeredBps: 31.25e6,
    searched: true,
  };
  assert.match(
    formatRanking(result),
    /Case 1, lost 12\.5% at 31\.2 Mbits\/sec, the lowest rate searched, above the 1% bound \(2 of 3 runs\): not ranked/,
  );
});

test('compare and history tell a searched UDP rate from an offered one, and an offered one with its bound from one without (version 4)', () => {
  const options = { duration: 3, udp: true, rate: 1e9, length: 1200 };
  const described = (extra) => workloadOf({ workload: 'udp', options: { ...options, ...extra } }).description;
  assert.equal(
    described({ maxLoss: 1, rateSearch: true }),
    'UDP the highest rate up to 1.00 Gbits/sec losing at most 1%, 1200-byte datagrams, 3 s a run',
  );
  assert.equal(
    described({ maxLoss: 1, rateSearch: false }),
    'UDP at 1.00 Gbits/sec offered, 1200-byte datagrams, 3 s a run',
  );
  assert.equal(
    described({ maxLoss: 1, rateSearch: false }),
    described({ maxLoss: null, rateSearch: false }),
    'the bound decides the ranking, not the figures',
  );
});

// A --max-loss search in three rounds, each round's run at the rate it
// found (or, finding none, at its lowest probe), summarised as the runner
// does: the block's figures and its 'max rate' line say one thing.
function searchedCase(found) {
  const [caseResult] = upgradeResult(fixture()).cases;
  const runs = found.map(([rate, lost], repeat) => ({
    ...caseResult.runs[0],
    repeat,
    udp: {
      offeredBps: rate ?? 31.25e6,
      length: 1200,
      packets: 10000,
      lost_packets: lost * 100,
      lost_percent: lost,
      jitter_ms: 0.1,
      out_of_order: 0,
      lossBound: 1,
      maxLoss: { percent: 1, rateBps: rate, probes: [] },
    },
  }));
  return { ...caseResult, runs, udp: summariseUdp(runs), ceiling: null, relative: null };
}

const udpRow = (block) => block.split('\n')[block.split('\n').findIndex((line) => line.startsWith('udp')) + 1];

test('a searched UDP block says which runs its figures are from, and either the rate found or that none was', () => {
  // Every round found a rate: the offered figure is their median, as the bitrates are.
  const all = formatCaseBlock(
    searchedCase([
      [62.5e6, 0.5],
      [125e6, 0.2],
      [93.75e6, 0.8],
    ]),
  );
  assert.match(udpRow(all), /^ +93\.8 Mbits\/sec +1200 B +0\.50% /);
  assert.match(
    all,
    /^max rate +93\.8 Mbits\/sec offered with at most 1% lost \(the median of 3 rounds\); the figures above are the medians of each round's run at the rate it found$/m,
  );
  assert.doesNotMatch(all, /that run's|loss bound/);

  // Two rounds found 31.2 Mbit/s, the third none at that lowest rate: one
  // line says both, and that the row is not ranked.
  const some = formatCaseBlock(
    searchedCase([
      [31.25e6, 0.5],
      [31.25e6, 0.2],
      [null, 56.7],
    ]),
  );
  assert.match(
    some,
    /^max rate +31\.2 Mbits\/sec offered with at most 1% lost in 2 of 3 rounds; none in 1 \(lost 56\.7% at 31\.2 Mbits\/sec, the lowest rate searched\): not ranked; the figures above are the medians of each round's run at the rate it found or its lowest$/m,
  );
  assert.doesNotMatch(some, /loss bound/);

  // One run that found none.
  const none = formatCaseBlock(searchedCase([[null, 12.5]]));
  assert.match(
    none,
    /^max rate +none with at most 1% lost \(lost 12\.5% at 31\.2 Mbits\/sec, the lowest rate searched\): not ranked; the figures above are that run's$/m,
  );
  assert.equal(
    (none.match(/31\.2 Mbits\/sec/g) ?? []).length,
    2,
    'the rate appears in the udp row and the max rate line only',
  );
});
