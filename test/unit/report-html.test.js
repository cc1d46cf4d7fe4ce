import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { formatHtmlReport } from '../../lib/report/html-report.js';

// The HTML report's text, without a browser; how Chromium lays it out is
// test/report-html.test.js's.
const fixture = () => JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));

test('the HTML file stands alone: nothing fetched, no script, every text escaped', () => {
  const result = fixture();
  result.cases[4].reason = 'bad <script>alert(1)</script> & "quotes"';
  const html = formatHtmlReport(result);
  assert.match(html, /^<!DOCTYPE html>\n/);
  assert.doesNotMatch(html, /<script|<link|<img|<iframe|@import|url\(/i);
  // The SVG namespace is an identifier, not a fetch; nothing else names a host.
  assert.deepEqual(html.match(/https?:\/\/[^\s"']+/g), ['http://www.w3.org/2000/svg']);
  assert.ok(html.includes('failed: bad &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;</li>'));
  // A failure's stderr tail goes under it, escaped too.
  result.cases[4].reason = 'relay server exited with code 1\nError: <bad> & worse';
  assert.ok(
    formatHtmlReport(result).includes(
      'failed: relay server exited with code 1<pre>Error: &lt;bad&gt; &amp; worse</pre></li>',
    ),
  );
});

test('a single plain run has bars but no whiskers, and no latency section', () => {
  const result = fixture();
  result.cases = result.cases
    .slice(0, 1)
    .map(({ runs, latency, ...caseResult }) => ({ ...caseResult, runs: runs.slice(0, 1), latency: null }));
  const html = formatHtmlReport(result);
  assert.equal(html.match(/<rect class="bar (sender|receiver)" data-case/g).length, 2);
  assert.doesNotMatch(html, /class="whisker|id="latency"|id="not-measured"/);
});
