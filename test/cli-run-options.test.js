import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { emptyFolder, runCli as runCliIn, waitFor } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

// run's issue-4 flags as a person types them: modes, --baseline, the
// exports. Free ports for each run; one short case (aes-128-gcm, case 12 of
// the bundled cases.js) without the cipher ceiling, so each run takes seconds.
const QUICK = ['--filter', 'aes-128-gcm', '--no-ceiling'];
const AES_128_GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];

// `cipherbench run ARGS` in a folder of its own, on free ports.
const runCli = async (args, options) => runCliIn(['run', ...args, ...(await freePortsFlag())], options);

// A result file as an earlier run would have archived it, with case 12
// measured at `bitsPerSecond` in each of three runs of 1 s, forward (a
// baseline of another duration or direction is refused).
function baselineFile(cwd, bitsPerSecond) {
  const fixture = JSON.parse(readFileSync(new URL('./fixtures/result-v2.json', import.meta.url), 'utf8'));
  const [template] = fixture.cases;
  const side = { bytes: bitsPerSecond / 8, seconds: 1, bits_per_second: bitsPerSecond };
  const caseResult = {
    ...template,
    index: 12,
    presets: AES_128_GCM,
    runs: template.runs.map((run) => ({ ...run, sender: side, receiver: side })),
    sender: { ...side, min: bitsPerSecond, max: bitsPerSecond, cv: 0 },
    receiver: { ...side, min: bitsPerSecond, max: bitsPerSecond, cv: 0 },
  };
  const file = path.join(cwd, `baseline-${bitsPerSecond}.json`);
  writeFileSync(
    file,
    JSON.stringify({ ...fixture, options: { ...fixture.options, duration: 1, both: false }, cases: [caseResult] }),
  );
  return file;
}

describe('cipherbench run: modes, --baseline, --markdown, --html', { timeout: 60_000 }, () => {
  test('a baseline far faster than now, 3 runs a side: the comparison after the ranking, exit 1; --full with explicit flags', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    const baseline = baselineFile(cwd, 1e13);
    const { code, stdout, stderr } = await runCli(
      [
        '--full',
        '--duration',
        '1',
        '--repeat',
        '3',
        '--max-rounds',
        '3',
        '--no-latency',
        '--json',
        '--no-archive',
        '--baseline',
        baseline,
        ...QUICK,
      ],
      { cwd },
    );
    assert.equal(code, 1, stderr);
    // stdout is the JSON report alone: the comparison went to stderr with the text.
    const result = JSON.parse(stdout);
    assert.deepEqual(
      [result.options.mode, result.options.duration, result.options.repeat, result.options.latency],
      ['full', 1, 3, false],
    );
    assert.deepEqual(
      result.cases.map((c) => [c.index, c.status, c.runs.length]),
      [[12, 'ok', 3]],
    );
    // One test, run three times: one block for it, after its last run.
    assert.match(stderr, /\n\nrunning 1 case, 3 runs each: 3 runs\.\.\.\n\n/);
    assert.equal(stderr.match(/------------ Case 12 -/g).length, 1);
    // --full's stopping rule, held to 3 rounds by --max-rounds: the rounds count up, the widest interval beside them.
    assert.match(
      stderr,
      /\[run 1\/3\] Case 12  aes-128-gcm \(round 1\) \.\.\.\n\[run 2\/3\] Case 12  aes-128-gcm \(round 2\) \.\.\.\n\[run 3\/3\] Case 12  aes-128-gcm \(round 3, widest ±[\d.]+%\) \.\.\.\n/,
    );
    assert.deepEqual(
      [result.options.confidence, result.options.maxRounds, result.rounds, result.stopped],
      [{ level: 0.95, width: 0.05 }, 3, 3, 'max-rounds'],
    );
    assert.match(stderr, /receiver  median .+ \(3 runs\)/);
    assert.match(
      stderr,
      new RegExp(`Done in [\\d.]+s\\.\\n\\nAgainst the baseline ${baseline}:\\nReceiver median bitrates, old run `),
    );
    assert.match(
      stderr,
      /\n +12 +forward +ss-base \+ ss-aead-cipher\(aes-128-gcm\) +10\.0 Tbits\/sec +.+ +-\d+\.\d% \[-\d+\.\d%, -\d+\.\d%\] +0\.050 +slower\n/,
    );
    assert.match(stderr, /REGRESSED: 1 of 1 cases got slower than the old run\.\n$/);
  });

  test('a baseline far slower than now, one run gated by --strict: exit 0; --markdown and --html written whole', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    const baseline = baselineFile(cwd, 1e3);
    const { code, stdout, stderr } = await runCli(
      [
        '--duration',
        '1',
        '--no-archive',
        '--baseline',
        baseline,
        '--strict',
        '--threshold',
        '10',
        '--markdown',
        'out.md',
        '--html',
        'out.html',
        ...QUICK,
      ],
      { cwd },
    );
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /\n +12 +forward +ss-base \+ ss-aead-cipher\(aes-128-gcm\) +1\.00 Kbits\/sec +.+ +\+\d+\.\d% +faster\n/,
    );
    assert.match(stdout, /No regression: no case got slower by more than 10% beyond the runs' noise\.\n$/);
    assert.match(stderr, /\nMarkdown report written: out\.md\nHTML report written: out\.html\n$/);
    const markdown = readFileSync(path.join(cwd, 'out.md'), 'utf8');
    assert.match(markdown, /^### cipherbench: 1 of 1 cases measured\n/);
    assert.match(markdown, /\| 1 \| 12 \| `ss-base \+ ss-aead-cipher\(aes-128-gcm\)` \|/);
    assert.match(markdown, /CPU s\/GB client, server/);
    const html = readFileSync(path.join(cwd, 'out.html'), 'utf8');
    assert.match(html, /^<!DOCTYPE html>\n/);
    assert.match(html, /<\/html>\n$/);
    // Nothing but the files asked for, and the baseline: no temporary left.
    assert.deepEqual(readdirSync(cwd).sort(), [path.basename(baseline), 'out.html', 'out.md']);
  });

  test('an export that cannot be written at the end: one line naming it, exit 1, the archive still written; --smoke', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    mkdirSync(path.join(cwd, 'folder'));
    // Writable when checked before the run, gone by its end.
    const { code, stderr } = await runCli(['--smoke', '--markdown', 'folder/out.md', ...QUICK], {
      cwd,
      during: async (child, output) => {
        await waitFor(() => output().stderr, /\[run 1\/1\]/);
        rmSync(path.join(cwd, 'folder'), { recursive: true });
      },
    });
    assert.equal(code, 1, stderr);
    assert.match(
      stderr,
      /\ncipherbench: the Markdown report was not written: cannot write folder\/out\.md: ENOENT[^\n]*\n$/,
    );
    const [json] = readdirSync(path.join(cwd, 'reports')).filter((name) => name.endsWith('.json'));
    const archived = JSON.parse(readFileSync(path.join(cwd, 'reports', json), 'utf8'));
    assert.deepEqual([archived.options.mode, archived.options.duration, archived.options.repeat], ['smoke', 1, 1]);
    assert.equal(archived.cases[0].status, 'ok');
  });

  test('bad input exits 2 before anything runs', async () => {
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'not-json.json'), '{');
    writeFileSync(path.join(cwd, 'not-json.json.bak'), 'export default [];');
    for (const [args, message] of [
      [['--baseline', 'missing.json'], /^cipherbench: cannot read missing\.json: no such file\n$/],
      [
        ['--baseline', 'not-json.json'],
        /^cipherbench: not-json\.json:1 is not JSON \(Expected property name or '}'\); pass a report/,
      ],
      [
        ['--baseline', 'not-json.json', '--threshold', 'lots'],
        /^cipherbench: --threshold must be a percentage of 0 or more/,
      ],
      [['--smoke', '--full'], /^cipherbench: give --smoke or --full, not both\n$/],
      [['--reverse', '--both'], /^cipherbench: give --reverse .* or --both .*, not the two together\n$/],
      [['--repeat', '0'], /^cipherbench: repeat must be a whole number of rounds, 1 to 100; got "0"\n$/],
      [
        ['--json', 'cases.js'],
        /^cipherbench: --json cases\.js: that looks like a cases file, not where to write the JSON report; give a \.json name/,
      ],
      [['--json', 'not-json.json.bak'], /^cipherbench: --json not-json\.json\.bak: that looks like a cases file/],
    ]) {
      const { code, stdout, stderr } = await runCli([...args, ...QUICK], { cwd });
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.equal(stdout, '', args.join(' '));
      assert.match(stderr, message, args.join(' '));
    }
    assert.deepEqual(
      readdirSync(cwd).sort(),
      ['not-json.json', 'not-json.json.bak'],
      'nothing archived or overwritten',
    );
    assert.equal(readFileSync(path.join(cwd, 'not-json.json.bak'), 'utf8'), 'export default [];');
  });

  test('--json FILE writes the JSON report whole and keeps the text on stdout; --json - is stdout', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    const toFile = await runCli(['--smoke', '--no-archive', '--json', 'r.json', ...QUICK], { cwd });
    assert.equal(toFile.code, 0, toFile.stderr);
    assert.match(toFile.stdout, /^cipherbench:\n/);
    assert.match(toFile.stdout, /\(ranking\):\n\n(DISTURBED: .+\n\n)? 1: Case 12, Bitrate=\[/);
    assert.match(toFile.stderr, /\nJSON report written: r\.json\n$/);
    const written = JSON.parse(readFileSync(path.join(cwd, 'r.json'), 'utf8'));
    assert.deepEqual(
      written.cases.map((c) => [c.index, c.status]),
      [[12, 'ok']],
    );
    assert.deepEqual(readdirSync(cwd), ['r.json']);

    const toStdout = await runCli(['--smoke', '--no-archive', '--json', '-', ...QUICK], { cwd });
    assert.equal(toStdout.code, 0, toStdout.stderr);
    assert.equal(JSON.parse(toStdout.stdout).cases[0].index, 12);
    assert.match(toStdout.stderr, /\(ranking\):/);
  });
});
