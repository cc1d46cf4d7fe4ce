import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { formatRanking } from '../../lib/report/text-report.js';
import { reportView } from '../../lib/report/view-model.js';

// The view model is what every printer reads: each says what it holds, in
// its own markup and no other words.
const read = (name) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
const unescapeHtml = (html) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

test('the Markdown and HTML rankings print one legend: the same marks with the same meanings, in the same order', () => {
  // Repeated runs and a noise floor: every conditional mark is in it.
  const result = { ...read('result-v2.json'), noiseFloor: { runs: 3, seconds: 1, cv: 0.042, bits_per_second: 9e9 } };
  const { legend } = reportView(result);
  assert.deepEqual(
    legend.marks.map(({ mark }) => mark),
    ['unstable', 'overlaps #N-#M', 'within noise of #N', 'disturbed', 'cipher faster than #N'],
  );
  const sentence = `${legend.rankedBy}${legend.marks.map(({ mark, meaning }) => `; ${mark}: ${meaning}`).join('')}.`;
  assert.match(sentence, /within noise of #N: closer to rank N than direct's own spread \(cv 4\.2%\);/);
  const markdown = formatMarkdownReport(result).replace(/\*\*/g, '');
  const html = unescapeHtml(formatHtmlReport(result));
  assert.ok(markdown.includes(sentence), markdown);
  assert.ok(html.includes(sentence), html);
});

test('an interrupted run says why in every format, from the one cause the view model holds', () => {
  const result = { ...read('compare/smoke-1.json'), complete: false, interrupted: 'SIGTERM' };
  const view = reportView(result);
  assert.equal(view.interruption, 'interrupted by SIGTERM');
  assert.equal(view.ending, `Interrupted by SIGTERM after ${result.wallSeconds.toFixed(2)}s.`);
  const ranking = formatRanking(result);
  assert.match(ranking, /^INCOMPLETE: interrupted by SIGTERM; \d+ of \d+ cases measured\.$/m);
  assert.ok(ranking.endsWith(`\n\n${view.ending}`));
  assert.match(formatMarkdownReport(result), /^\*\*Incomplete:\*\* interrupted by SIGTERM\.$/m);
  assert.match(formatHtmlReport(result), /<strong>Incomplete:<\/strong> interrupted by SIGTERM\.<\/p>/);
  // An API caller's own reason, and a complete run.
  assert.equal(reportView({ ...result, interrupted: 'aborted' }).interruption, 'the run was cut short');
  assert.equal(reportView({ ...result, complete: true, interrupted: null }).interruption, null);
});

test("a result still running has no ending line: the ranking of a run-started event's result prints without one", () => {
  const result = { ...read('compare/smoke-1.json'), wallSeconds: null, complete: false };
  assert.equal(reportView(result).ending, null);
  assert.match(formatRanking(result), /INCOMPLETE: the run was cut short/);
  assert.doesNotMatch(formatRanking(result), /Done in|Cut short after/);
});

test('an interrupted request run counts the cases its table ranks as measured, in the text as in the title', () => {
  const result = { ...read('compare/requests-smoke.json'), complete: false, interrupted: 'SIGINT' };
  const view = reportView(result);
  const ok = result.cases.filter((caseResult) => caseResult.status === 'ok').length;
  assert.ok(ok > 0 && view.ranked.length === 0, 'every ok case is in the request table, none in the bitrate ranking');
  assert.equal(view.measured, ok);
  assert.match(
    formatRanking(result),
    new RegExp(`^INCOMPLETE: interrupted by SIGINT; ${ok} of ${result.cases.length} cases measured\\.$`, 'm'),
  );
  assert.match(
    formatMarkdownReport(result),
    new RegExp(`^### cipherbench: ${ok} of ${result.cases.length} cases measured$`, 'm'),
  );
});
