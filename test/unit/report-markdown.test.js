import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatJsonReport } from '../../lib/report/json-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { formatTextReport } from '../../lib/report/text-report.js';

const fixture = () => JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));

// The cells of each Markdown table row, with escaped pipes kept inside cells.
function tables(markdown) {
  const found = [];
  let current = null;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) {
      current ??= [];
      current.push(
        line
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((cell) => cell.trim()),
      );
    } else if (current) {
      found.push(current);
      current = null;
    }
  }
  return found;
}

// One run of each chain, no repeats or extras: the shape of a run before issue 4.
function singleRunResult() {
  const result = fixture();
  result.options.repeat = 1;
  result.cases = result.cases
    .filter((caseResult) => caseResult.direction === 'forward')
    .map((caseResult) => {
      const { runs, unstable, cost, latency, ceiling, direction, parallel, ...plain } = caseResult;
      return plain;
    });
  return result;
}

test('an environment table, then the ranking by median receiver bitrate', () => {
  const [environment, ranking] = tables(formatMarkdownReport(fixture()));
  assert.deepEqual(environment, [
    ['Environment', ''],
    ['---', '---'],
    ['cipherbench', '0.1.0'],
    ['CPU', 'AMD EPYC 7B13, 2 cores (1 physical), AES'],
    ['Memory', '23.5 GBytes'],
    ['OS', 'Debian GNU/Linux 12 (bookworm) (Linux 6.18.44, x64)'],
    ['Node.js', '20.19.5 (OpenSSL 3.0.17)'],
    ['iperf3', '3.12'],
    ['Run', '3 s a case, 1 stream, median of 3 runs a case, default mode'],
    ['Cases', '/work/cases.js'],
    ['Started', '2026-11-23T01:02:03.456Z'],
  ]);
  assert.deepEqual(ranking[0], [
    '#',
    'Case',
    'Chain',
    'Direction',
    'Sender',
    'Receiver',
    'Receiver min..max',
    'CV',
    'CPU s/GB client, server',
    'RTT p50 / p99 (ms)',
    'Efficiency',
  ]);
  assert.deepEqual(ranking[1], ['---:', '---:', '---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']);
  assert.deepEqual(ranking[2], [
    '1',
    '0',
    '`ss-base + ss-aead-cipher(aes-256-gcm)`',
    'forward',
    '2.62 Gbits/sec',
    '**2.45 Gbits/sec**',
    '2.41..2.52 Gbits/sec',
    '2.3%',
    '2.23, 2.32',
    '0.075 / 0.181',
    '47.9%',
  ]);
  assert.deepEqual(
    ranking.slice(2).map((cells) => [cells[0], cells[1], cells[3], cells[5], cells[7]]),
    [
      ['1', '0', 'forward', '**2.45 Gbits/sec**', '2.3%'],
      ['2', '0', 'reverse', '**2.35 Gbits/sec**', '1.7%'],
      ['3', '1', 'reverse', '**1.49 Gbits/sec**', '0.9%'],
      ['4', '1', 'forward', '**1.35 Gbits/sec**', '19.2% **unstable**'],
    ],
  );
});

test('unmeasured cases are listed under the table with their reason', () => {
  const markdown = formatMarkdownReport(fixture());
  assert.match(
    markdown,
    /\n\nNot measured:\n\n- Case 2 `ss-base \+ ss-stream-cipher\(rc4-md5\)`: failed: relay server exited with code 1\n {2}```\n {2}Error: error:0308010C:digital envelope routines::unsupported\n {2}```\n- Case 2 \(reverse\) /,
  );
  assert.match(markdown, /\*\*unstable\*\*: the runs varied by more than 10\.0% \(cv\)/);
});

test('a single plain run gets a narrow table: no spread, cost, latency, ceiling or direction columns', () => {
  const markdown = formatMarkdownReport(singleRunResult());
  const ranking = tables(markdown)[1];
  assert.deepEqual(ranking[0], ['#', 'Case', 'Chain', 'Sender', 'Receiver']);
  assert.deepEqual(
    ranking.slice(2).map((cells) => cells[1]),
    ['0', '1'],
  );
  assert.ok(
    tables(markdown)[0].some(
      ([name, value]) => name === 'Run' && value === '3 s a case, 1 stream, 1 run a case, default mode',
    ),
  );
  assert.doesNotMatch(markdown, /unstable|median/);
});

test('every row has as many cells as the header, and pipes in text cannot break a row', () => {
  const result = fixture();
  result.cases[0].presets[1].params.method = 'odd|method';
  result.cases[4].reason = 'exit | code 1\nsecond line';
  const markdown = formatMarkdownReport(result);
  for (const table of tables(markdown)) {
    for (const cells of table) assert.equal(cells.length, table[0].length, cells.join(' | '));
  }
  assert.ok(markdown.includes('`ss-base + ss-aead-cipher(odd\\|method)`'));
  assert.ok(markdown.includes('failed: exit \\| code 1\n'));
});

test('an interrupted run says so above the ranking', () => {
  const result = fixture();
  Object.assign(result, { complete: false, interrupted: 'SIGINT' });
  assert.match(formatMarkdownReport(result), /\n\*\*Incomplete:\*\* interrupted by SIGINT\.\n\n\| # \|/);
});

// Real smoke runs on the shared machine (test/fixtures/compare): a TCP one
// whose runs recorded how busy the machine was, and a requests one.
const realRun = (name) => JSON.parse(readFileSync(new URL(`../fixtures/compare/${name}`, import.meta.url), 'utf8'));

test('every format says how busy the machine was while it measured', () => {
  const result = realRun('smoke-1.json');
  const sentence =
    'The machine while it measured: load average 9.0-9.1 before the runs, 0.0%-0.4% of its CPU idle during them.';
  assert.ok(formatTextReport(result).split('\n').includes(sentence));
  // Markdown: under the environment table, before the ranking.
  assert.ok(formatMarkdownReport(result).includes(`| Started | ${result.startedAt} |\n\n${sentence}\n\n| # |`));
  assert.ok(formatHtmlReport(result).includes(`</table>\n</div>\n<p class="note">${sentence}</p>\n</section>`));
  // JSON: the result as is, every ok run with its disturbance.
  const runs = JSON.parse(formatJsonReport(result)).cases.flatMap((caseResult) => caseResult.runs);
  assert.ok(
    runs.length > 0 &&
      runs.every((run) => typeof run.disturbance.loadAverage === 'number' && typeof run.disturbance.idle === 'number'),
  );
  // A result without it (before the field) says nothing rather than "unknown".
  assert.doesNotMatch(formatMarkdownReport(fixture()), /The machine while it measured/);
});

test('the requests table marks ranks as the bitrate ranking does, and no noise floor of bitrate judges them', () => {
  const result = realRun('requests-smoke.json');
  const notes = (markdown) =>
    tables(markdown)
      .find((table) => table[0].includes('req/s'))
      .slice(2)
      .map((row) => row[5]);
  // 3 runs a case: 28476 [23069-29552], 23115 [20054-27338], 21410 [20547-26659]
  // all overlap: each row names the other two.
  assert.deepEqual(notes(formatMarkdownReport(result)), [
    '28476 [23069-29552 at 75%], overlaps #2-#3',
    '23115 [20054-27338 at 75%], overlaps #1-#3',
    '21410 [20547-26659 at 75%], overlaps #1-#2',
  ]);
  assert.match(formatTextReport(result), / 21410 \[20547-26659 at 75%\], overlaps #1-#2 /);
  assert.match(formatMarkdownReport(result), /median over runs with its 75% interval/);
  assert.match(formatMarkdownReport(result), /overlaps #N-#M: its interval overlaps those of ranks N to M/);
  // One round (no intervals) beside a noise floor of cv 10 %: 21410 is
  // within 10 % of 23115, but that spread is direct's bitrate, not a
  // request rate's: no rank is judged by it, and the note says so.
  for (const caseResult of result.cases) Object.assign(caseResult.requests, { low: null, high: null });
  result.noiseFloor = { runs: 3, seconds: 1, cv: 0.1, bits_per_second: 2e10, values: [1.9e10, 2e10, 2.3e10] };
  assert.deepEqual(notes(formatMarkdownReport(result)), ['28476', '23115', '21410']);
  const said = "no noise floor applies to requests per second (direct's, cv 10.0%, is a TCP stream's bitrate)";
  for (const report of [formatMarkdownReport(result), formatTextReport(result), unescaped(formatHtmlReport(result))]) {
    assert.ok(report.includes(said), report);
    assert.doesNotMatch(report, /within noise/);
  }
  assert.doesNotMatch(formatTextReport(result), /^noise floor: /m);
});

const unescaped = (html) => html.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');

test("the requests legend says what load gen ms/1k's percentage is", () => {
  const result = realRun('requests-smoke.json');
  for (const caseResult of result.cases) {
    caseResult.requests.generator = { engine: 'wrk', cpuSecondsPerThousand: 0.0115, share: 0.07, squeezedRuns: 0 };
  }
  assert.match(formatTextReport(result), / 11\.5 \(7%\)$/m);
  for (const report of [formatMarkdownReport(result), formatTextReport(result), unescaped(formatHtmlReport(result))]) {
    assert.match(report, /load gen ms\/1k: wrk's own CPU ms per 1,000 requests, \(N%\) its share of all cores' time/);
  }
});
