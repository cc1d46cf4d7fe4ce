import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { caseWorkload, figureFor, sectionsOf } from '../../lib/report/sections/index.js';
import { formatCaseBlock, formatRanking } from '../../lib/report/text-report.js';
import { upgradeResult } from '../../lib/result.js';
import { WORKLOADS, workloadFor } from '../../lib/workload/index.js';

// Each workload names its report sections (lib/report/sections/) and the
// printers look them up by the result's `workload`, never by which
// figures a case happens to carry.
const fixture = (name) =>
  upgradeResult(JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')));

test('every workload the runner can choose has its sections, each with its own word and figure', () => {
  const names = [{}, { udp: true }, { requests: true }].map((settings) => workloadFor(settings).name);
  assert.deepEqual(names, ['bulk', 'udp', 'requests']);
  // Each workload its option asks for, the one without when none is given.
  for (const workload of WORKLOADS)
    assert.equal(workloadFor(workload.option ? { [workload.option.name]: true } : {}), workload, workload.name);
  const kinds = WORKLOADS.map(({ name }) => sectionsOf(name).kind);
  assert.deepEqual(kinds.slice(0, 3), ['tcp', 'udp', 'requests']);
  assert.equal(new Set(kinds).size, kinds.length, kinds.join(', '));
  for (const { name } of WORKLOADS) assert.equal(figureFor(sectionsOf(name).kind), sectionsOf(name).figure);
  assert.throws(() => sectionsOf('latency'), /no report sections for the workload 'latency'/);
});

test("the ranking's sections are the result's workload's: a bulk run relabelled as requests loses its bitrate ranking", () => {
  const bulk = fixture('compare/smoke-1.json');
  assert.equal(bulk.workload, 'bulk');
  const relabelled = { ...bulk, workload: 'requests' };
  assert.match(formatRanking(bulk), /Bitrate=\[/);
  assert.doesNotMatch(formatRanking(relabelled), /Bitrate=\[/);
  assert.match(formatMarkdownReport(bulk), /\| Receiver/);
  assert.doesNotMatch(formatMarkdownReport(relabelled), /\| Receiver/);
  assert.match(formatHtmlReport(bulk), /<section id="chart">/);
  assert.doesNotMatch(formatHtmlReport(relabelled), /<section id="chart">/);
});

test("a case block's sections are the workload's it is given, else those of the figures it carries", () => {
  const requests = fixture('compare/requests-smoke.json');
  const [measured] = requests.cases.filter((caseResult) => caseResult.status === 'ok');
  assert.equal(caseWorkload(measured), 'requests');
  assert.match(formatCaseBlock(measured), /^Requests {9}\d+ ok in/m);
  const bulk = fixture('compare/smoke-1.json').cases.find((caseResult) => caseResult.status === 'ok');
  assert.equal(caseWorkload(bulk), 'bulk');
  assert.match(formatCaseBlock(bulk), /^Interval {9}Transfer/m);
});
