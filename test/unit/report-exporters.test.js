import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { registerReportCommand } from '../../lib/cli/report-command.js';
import { EXPORTERS, writeExports } from '../../lib/report/exporters.js';
import { REPORT_OPTIONS } from '../../lib/report/report-options.js';
import { upgradeResult } from '../../lib/result.js';

// A format is a printer and a line in the exporters' table: the report
// command's flags and the run command's file flags come from that line,
// and writeExports prints with its printer. Read from the commands as
// commander built them, not from the table again.
const fixture = () => JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));

function reportCommandFlags() {
  const program = new Command();
  registerReportCommand(program);
  return program.commands[0].options.map((option) => option.flags);
}

test('the report command has a flag for every exporter, and --no-color for the coloured one, nothing else', () => {
  assert.deepEqual(reportCommandFlags(), [...EXPORTERS.map((exporter) => exporter.flag), '--no-color']);
});

test('the run command has the flag of every exporter that says what it does there', () => {
  const runFlags = REPORT_OPTIONS.flatMap((option) => option.cli.map((cli) => cli.flags));
  const onRun = EXPORTERS.filter((exporter) => exporter.onRun);
  assert.ok(onRun.length > 0);
  for (const exporter of onRun) assert.ok(runFlags.includes(exporter.flag), exporter.flag);
});

test("writeExports prints each asked-for format with its exporter's printer, '-' to stdout, in the table's order", async () => {
  const result = upgradeResult(fixture());
  const stdout = new PassThrough();
  const chunks = [];
  stdout.on('data', (chunk) => chunks.push(chunk));
  const written = await writeExports(
    result,
    { html: '-', json: '-', text: true },
    { stdout, stderr: new PassThrough() },
  );
  assert.equal(written, true);
  const [json, html] = await Promise.all(
    ['json', 'html'].map(async (name) =>
      (await EXPORTERS.find((exporter) => exporter.name === name).printer())(result),
    ),
  );
  assert.equal(Buffer.concat(chunks).toString(), json + html);
  assert.ok(json.startsWith('{') && html.startsWith('<!DOCTYPE html>'), 'the JSON, then the HTML');
});
