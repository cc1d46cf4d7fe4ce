import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { compareResults } from '../../lib/report/comparison.js';
import { formatComparison } from '../../lib/report/comparison-text.js';
import { buildHistory } from '../../lib/report/history.js';
import { formatHistoryHtml } from '../../lib/report/history-html.js';
import { formatHistoryText } from '../../lib/report/history-text.js';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatJsonReport } from '../../lib/report/json-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { formatCaseBlock, formatTextReport } from '../../lib/report/text-report.js';

// Every report, compare and history output of the pinned results in
// test/fixtures/golden/ (its README says where they come from), byte for
// byte as the files in out/ hold it: a change of the printers' code that
// is not meant to change what they print shows here, file by file.
// CIPHERBENCH_GOLDEN=write rewrites out/ from today's code, for a change
// that is meant to (its reason goes in the commit).
const GOLDEN = new URL('../fixtures/golden/', import.meta.url);
const OUT = new URL('out/', GOLDEN);
const read = (url) => readFileSync(url, 'utf8');
const manifest = JSON.parse(read(new URL('manifest.json', GOLDEN)));
const result = (name) => JSON.parse(read(new URL(manifest.results[name], GOLDEN)));
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

// { file: text } of every output, a printer that throws on a pinned input
// (a partial one, built for a single printer) giving no file.
function renderAll() {
  const outputs = {};
  const put = (file, render) => {
    try {
      outputs[file] = render();
    } catch (error) {
      if (error.exitCode === undefined) return;
      // A refusal a person can cause is output too: the command prints it.
      outputs[file.replace(/\.[a-z.]+$/, '.refused.txt')] = `${error.message}\n`;
    }
  };
  const jsonExports = [];
  for (const name of manifest.reports) {
    const given = result(name);
    put(`${name}.txt`, () => formatTextReport(given, { color: false }));
    put(`${name}.color.txt`, () => formatTextReport(given, { color: true }));
    put(`${name}.md`, () => formatMarkdownReport(given));
    put(`${name}.html`, () => formatHtmlReport(given));
    // The JSON export is the result itself: its digest, not a second copy.
    jsonExports.push(`${sha256(formatJsonReport(given))}  ${name}.json\n`);
  }
  outputs['json-exports.sha256'] = jsonExports.join('');
  const cases = JSON.parse(read(new URL('cases.json', GOLDEN)));
  for (const color of [false, true]) {
    const blocks = cases.map((caseResult, at) => {
      try {
        return `## case ${at}\n${formatCaseBlock(caseResult, { color })}`;
      } catch (error) {
        return `## case ${at}\nthrows ${error.name}`;
      }
    });
    outputs[color ? 'cases.color.txt' : 'cases.txt'] = `${blocks.join('\n\n')}\n`;
  }
  for (const { name, old, new: now, options } of manifest.compares) {
    let comparison;
    put(`compare-${name}.json`, () => {
      comparison = compareResults(result(old), result(now), options);
      return `${JSON.stringify(comparison, null, 2)}\n`;
    });
    if (!comparison) continue;
    put(`compare-${name}.txt`, () => formatComparison(comparison, { color: false }));
    put(`compare-${name}.color.txt`, () => formatComparison(comparison, { color: true }));
  }
  for (const { name, runs, options } of manifest.histories) {
    const history = buildHistory(
      runs.map((run) => ({ file: run.file, result: result(run.result) })),
      options,
    );
    put(`history-${name}.json`, () => `${JSON.stringify(history, null, 2)}\n`);
    put(`history-${name}.txt`, () => formatHistoryText(history, { color: false }));
    put(`history-${name}.color.txt`, () => formatHistoryText(history, { color: true }));
    put(`history-${name}.html`, () => formatHistoryHtml(history));
  }
  return outputs;
}

if (process.env.CIPHERBENCH_GOLDEN === 'write') {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT);
  for (const [file, text] of Object.entries(renderAll())) writeFileSync(new URL(file, OUT), text);
}

test('every report, compare and history output of the pinned results is the golden file, byte for byte', () => {
  const outputs = renderAll();
  assert.deepEqual(Object.keys(outputs).sort(), readdirSync(OUT).sort(), 'the same files, none missing, none new');
  for (const [file, text] of Object.entries(outputs)) {
    // One file at a time: a failure names the output that moved.
    assert.equal(text, read(new URL(file, OUT)), `test/fixtures/golden/out/${file}`);
  }
});
