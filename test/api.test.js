import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
// By the package's own name, as a program that installed it imports it:
// package.json "exports" is what this resolves through.
import { createReporter, EXPORTERS, REPORT_OPTIONS, readResultFile, report, RESULT_VERSION, run } from 'cipherbench';
import { emptyFolder, runCli } from './support/cli.js';
import { freeRunPorts, portsFlag } from './support/ports.js';

// One chain and one reference row, with the built-in engine.
const CASES = [
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
  { impl: 'direct' },
];
const EXPORT_FLAGS = { json: 'run.json', markdown: 'run.md', html: 'run.html' };

function casesFolder() {
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.js'), `export default ${JSON.stringify(CASES)};\n`);
  return cwd;
}

// What a written file says once its measured figures and times are set
// aside: the same sections, rows, labels and fields. What the machine did
// is set aside too: a case warns of steal only in a run during which the
// hypervisor took over 5% of the CPU, which one of two runs may and the
// other not.
function shape(file) {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.json')) {
    const result = JSON.parse(text);
    for (const caseResult of result.cases) {
      caseResult.disturbed = null;
      for (const run of caseResult.runs) {
        delete run.remeasured;
        delete run.disturbed;
      }
    }
    return keys(result);
  }
  return (
    text
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
      .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/g, 'N')
      .replace(/\b[KMGT]?(Bytes|bits\/sec)\b/g, 'UNIT')
      // Stolen time is named only in the runs that had some, disturbed
      // cases only when there were some.
      .replace(/, N%N% stolen\./g, '.')
      .replace(/ N of N cases were disturbed: [^.]*\./g, '')
      .replace(/(\*\*|<p class="warning">)?DISTURBED: [^\n]*\n\n?/g, '')
      .replace(/(, )?<span class="mark">(disturbed( in N of N runs)?|within noise of #N)<\/span>/g, '')
      .replace(/ <span class="marker"><\/span>/g, '')
      .replace(/(, | \*\*| <span class="marker">)disturbed( in N of N runs)?(\*\*|<\/span>)?/g, '')
      // Whether a case ranks within noise of the one above is measured too:
      // it follows from two bitrates and the noise floor's spread.
      .replace(/(, | \*\*| <span class="marker">)within noise of #N(\*\*|<\/span>)?/g, '')
      .replace(/ +/g, ' ')
      .split('\n')
      .filter((line) => !/^within noise of #N: /.test(line))
      .filter((line) => !/^<(path|line|rect|text|g)\b/.test(line.trim()))
      // The ranking's order is measured as well (a relay pair outran direct
      // in one run of two on a loaded machine): the same lines, in any order.
      .sort()
  );
}

function keys(value) {
  if (Array.isArray(value)) return value.map(keys);
  if (value === null || typeof value !== 'object') return typeof value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === 'node' || key === 'environment' ? 'machine' : keys(inner),
    ]),
  );
}

const written = (cwd) =>
  [
    ...Object.values(EXPORT_FLAGS).filter((file) => readdirSync(cwd).includes(file)),
    ...readdirSync(path.join(cwd, 'reports')).map((file) => path.join('reports', file)),
  ].sort();
// The archive is named for the second its run started: two runs, two names.
const archiveNamed = (files) =>
  files.map((file) => file.replace(/^(reports[\\/])\d{4}-\d\d-\d\d-\d{6}Z(-\d+)?\./, '$1RUN.'));

test('the package API writes the same files as the CLI for the same run', { timeout: 60_000 }, async () => {
  // Every format the run command can write beside its archive is given.
  assert.deepEqual(
    EXPORTERS.map((exporter) => exporter.name).filter((name) => REPORT_OPTIONS.some((option) => option.name === name)),
    Object.keys(EXPORT_FLAGS),
  );

  // The same free ports for both runs, as a person would give them: a
  // fixed set collided with this file run by another suite beside it.
  const ports = await freeRunPorts();
  const cliFolder = casesFolder();
  const flags = Object.entries(EXPORT_FLAGS).flatMap(([option, file]) => [`--${option}`, file]);
  const cli = await runCli(
    ['run', '--engine', 'node', '--duration', '1', '--no-ceiling', ...portsFlag(ports), ...flags],
    { cwd: cliFolder },
  );
  assert.equal(cli.code, 0, cli.stderr);

  const apiFolder = casesFolder();
  const lines = { stdout: '', stderr: '' };
  const stream = (name) => ({
    isTTY: false,
    write: (text) => {
      lines[name] += text;
    },
  });
  const inFolder = (file) => path.join(apiFolder, file);
  const reporter = await createReporter({
    json: inFolder(EXPORT_FLAGS.json),
    markdown: inFolder(EXPORT_FLAGS.markdown),
    html: inFolder(EXPORT_FLAGS.html),
    out: inFolder('reports'),
    stdout: stream('stdout'),
    stderr: stream('stderr'),
  });
  const result = await run({
    casesFile: inFolder('cases.js'),
    engine: 'node',
    duration: 1,
    repeat: 1,
    remeasure: 0,
    ceiling: false,
    ports,
    onEvent: reporter.onEvent,
  });
  const outcome = await reporter.finish(result);
  assert.equal(outcome.ok, true, lines.stderr);
  assert.equal(result.resultVersion, RESULT_VERSION);

  assert.deepEqual(archiveNamed(written(apiFolder)), archiveNamed(written(cliFolder)));
  for (const [at, file] of written(cliFolder).entries()) {
    assert.deepEqual(shape(inFolder(written(apiFolder)[at])), shape(path.join(cliFolder, file)), file);
  }
  // The text the person reads, and the messages about what was written.
  // Both cases ranked, in whatever order the machine measured them.
  assert.match(lines.stdout, /\n\(ranking\):\n\n(DISTURBED: .+\n\n)? [12]: Case [01], .+\n [12]: Case [01], .+\n/);
  assert.match(lines.stdout, /\n [12]: Case 1, .*direct \(no relay\)\n/);
  assert.match(lines.stdout, /\n [12]: Case 0, .*ss-base \+ ss-aead-cipher\(aes-256-gcm\)\n/);
  for (const [kind, file] of [
    ['JSON', 'run.json'],
    ['Markdown', 'run.md'],
    ['HTML', 'run.html'],
  ]) {
    assert.match(cli.stderr, new RegExp(`\\n${kind} report written: ${file.replace('.', '\\.')}\\n`));
    assert.ok(lines.stderr.includes(`${kind} report written: ${inFolder(file)}\n`), lines.stderr);
  }
  assert.match(lines.stderr, /^report archived: .*\.txt and .*\.json$/m);

  // report() makes the same files again from the archived result, later.
  const archived = await readResultFile(inFolder(written(apiFolder).find((file) => file.endsWith('.json'))));
  const again = await report(archived, {
    archive: false,
    markdown: inFolder('again.md'),
    html: inFolder('again.html'),
    stdout: stream('stdout'),
    stderr: stream('stderr'),
  });
  assert.deepEqual(again, { archived: null, written: true, regressed: false, ok: true });
  assert.equal(readFileSync(inFolder('again.md'), 'utf8'), readFileSync(inFolder('run.md'), 'utf8'));
  assert.equal(readFileSync(inFolder('again.html'), 'utf8'), readFileSync(inFolder('run.html'), 'utf8'));
});
