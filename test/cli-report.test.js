import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { formatHtmlReport } from '../lib/report/html-report.js';
import { formatMarkdownReport } from '../lib/report/markdown-report.js';
import { formatTextReport } from '../lib/report/text-report.js';
import { emptyFolder, runCli } from './support/cli.js';

// `cipherbench report FILE.json`: the reports of an archived run, made
// after the run from its JSON alone.
const FIXTURE = new URL('./fixtures/result-v2.json', import.meta.url).pathname;
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8'));

test('report prints the text report of an archived result by default', async () => {
  const { code, stdout, stderr } = await runCli(['report', FIXTURE], { env: { NO_COLOR: '1' } });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, formatTextReport(fixture, { color: false }));
  assert.equal(stderr, '');
});

test('report --markdown and --html write the same exports a run writes; - is stdout', async () => {
  const cwd = emptyFolder();
  const { code, stdout, stderr } = await runCli(['report', FIXTURE, '--markdown', 'r.md', '--html', 'r.html'], { cwd });
  assert.equal(code, 0, stderr);
  assert.equal(stdout, '', 'no text unless --text is given too');
  assert.equal(stderr, 'Markdown report written: r.md\nHTML report written: r.html\n');
  assert.equal(readFileSync(path.join(cwd, 'r.md'), 'utf8'), formatMarkdownReport(fixture));
  assert.equal(readFileSync(path.join(cwd, 'r.html'), 'utf8'), formatHtmlReport(fixture));
  assert.deepEqual(readdirSync(cwd).sort(), ['r.html', 'r.md']);

  const both = await runCli(['report', FIXTURE, '--text', '--markdown', '-'], { cwd, env: { NO_COLOR: '1' } });
  assert.equal(both.code, 0, both.stderr);
  assert.equal(both.stdout, formatTextReport(fixture, { color: false }) + formatMarkdownReport(fixture));
});

test('report: a missing or wrong file is one line and exit 2; an unwritable export exit 1', async () => {
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'other.json'), '{"name": "x"}');
  for (const [file, message] of [
    ['missing.json', /^cipherbench: cannot read missing\.json: no such file\n$/],
    ['other.json', /^cipherbench: other\.json is not a cipherbench result/],
  ]) {
    const { code, stdout, stderr } = await runCli(['report', file], { cwd });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, message);
  }
  const unwritable = await runCli(['report', FIXTURE, '--html', 'no/such/dir/r.html'], { cwd });
  assert.equal(unwritable.code, 1);
  assert.match(
    unwritable.stderr,
    /^cipherbench: the HTML report was not written: cannot write no\/such\/dir\/r\.html: ENOENT/,
  );
});
