import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { emptyFolder } from './support/cli.js';
import { freeRunPorts } from './support/ports.js';
import { CLI } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// docs/ci.md's workflow, its shell steps run here as GitHub would run them
// (bash -e, in the checkout, with GITHUB_STEP_SUMMARY), so the recipe a
// user copies cannot rot. `gh` is a stand-in that lists one earlier run and
// "downloads" its result from a folder: GitHub is not here.
const RECIPE = readFileSync(new URL('../docs/ci.md', import.meta.url), 'utf8');
const WORKFLOW = /^```yaml\n([\s\S]*?)^```$/m.exec(RECIPE)[1];
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];

// { step name: its `run: |` script }, in the workflow's order.
function shellSteps(workflow) {
  const steps = new Map();
  const lines = workflow.split('\n');
  for (let at = 0; at < lines.length; at++) {
    const named = /^(\s*)- name: (.+)$/.exec(lines[at]);
    if (!named) continue;
    const runAt = lines.findIndex((line, i) => i > at && /^\s*run: \|$/.test(line));
    const nextStep = lines.findIndex((line, i) => i > at && /^\s*- (name|uses):/.test(line));
    if (runAt < 0 || (nextStep >= 0 && runAt > nextStep)) continue;
    const indent = /^(\s*)/.exec(lines[runAt + 1])[1].length;
    const body = [];
    for (
      let i = runAt + 1;
      i < lines.length && (lines[i].trim() === '' || /^(\s*)/.exec(lines[i])[1].length >= indent);
      i++
    )
      body.push(lines[i].slice(indent));
    steps.set(named[2], body.join('\n').replace(/\$\{\{ github\.event\.repository\.default_branch \}\}/g, 'main'));
  }
  return steps;
}

// A repository as the recipe expects one: cases.js, and cipherbench in
// node_modules/.bin (npm ci's work, done here by a link).
function checkout(ghServes) {
  const dir = emptyFolder();
  writeFileSync(path.join(dir, 'cases.js'), `export default ${JSON.stringify([AES])};\n`);
  mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(CLI, path.join(dir, 'node_modules', '.bin', 'cipherbench'));
  const bin = path.join(dir, '.fake-bin');
  mkdirSync(bin);
  const gh = path.join(bin, 'gh');
  writeFileSync(
    gh,
    `#!/bin/sh
# gh run list ... : the last good run's id, or nothing
if [ "$1 $2" = "run list" ]; then ${ghServes ? 'echo 4242' : 'true'}; exit 0; fi
# gh run download 4242 --name cipherbench-result --dir baseline
if [ "$1 $2 $3" = "run download 4242" ] && [ "$5" = "cipherbench-result" ]; then cp ${JSON.stringify(ghServes ?? '')}/* "$7"/; exit 0; fi
echo "gh stand-in: unexpected: $*" >&2; exit 3
`,
  );
  chmodSync(gh, 0o755);
  return { dir, bin, summary: path.join(dir, 'step-summary.md') };
}

function runStep(script, { dir, bin, summary }, flags) {
  return spawnSync('bash', ['-e', '-c', script], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      GITHUB_STEP_SUMMARY: summary,
      GH_TOKEN: 'not-used',
      CIPHERBENCH_FLAGS: flags,
      NO_COLOR: '1',
    },
  });
}

test(
  'the CI recipe: every shell step runs; with no earlier result it passes and keeps this one; against a much faster one it fails with the comparison in the summary',
  { timeout: 240_000 },
  async (t) => {
    if (!requirePrograms(t, 'bash', 'iperf3')) return;
    const steps = shellSteps(WORKFLOW);
    assert.deepEqual(
      [...steps.keys()],
      [
        'Install',
        'Fetch the last good result',
        'Run the benchmark',
        'Compare with the last good result',
        'Keep this result for the next run',
      ],
    );
    assert.match(WORKFLOW, /schedule:\n\s+- cron: /);
    assert.match(WORKFLOW, /github\.event\.label\.name == 'benchmark'/);
    assert.match(
      WORKFLOW,
      /uses: actions\/upload-artifact@v4\n\s+with:\n\s+name: cipherbench-result\n\s+path: result\//,
    );
    const { client, server, target } = await freeRunPorts();
    const flags = `--ports ${client},${server},${target} --duration 1 --no-ceiling`;

    // The first run: nothing to compare with.
    const first = checkout(null);
    for (const name of [
      'Fetch the last good result',
      'Run the benchmark',
      'Compare with the last good result',
      'Keep this result for the next run',
    ]) {
      const step = runStep(steps.get(name), first, flags);
      assert.equal(step.status, 0, `${name}:\n${step.stdout}\n${step.stderr}`);
    }
    const summary = readFileSync(first.summary, 'utf8');
    assert.match(summary, /^## cipherbench\n\n/);
    assert.match(summary, /\| `ss-base \+ ss-aead-cipher\(aes-128-gcm\)` \|/);
    assert.match(summary, /\nNo earlier result: this run is the baseline for the next\.\n$/);
    const kept = JSON.parse(readFileSync(path.join(first.dir, 'result', 'latest.json'), 'utf8'));
    assert.equal(kept.cases[0].runs.length, 3, 'three runs a case, as compare needs');
    assert.deepEqual(
      kept.cases[0].runs.map((run) => run.status),
      ['ok', 'ok', 'ok'],
      `every run measured, as the comparison below needs: ${kept.cases[0].runs.map((run) => run.reason)}`,
    );
    assert.ok(existsSync(path.join(first.dir, 'result', 'reports')));

    // The next run, against a result at 1 Tbit/s, which nothing here reaches:
    // every new run below every old one, as the test needs to be sure.
    const faster = emptyFolder();
    for (const caseResult of kept.cases) {
      caseResult.runs.forEach((run, at) => {
        for (const side of [run.sender, run.receiver]) side.bits_per_second = 1e12 * (1 + at / 100);
      });
      for (const side of [caseResult.sender, caseResult.receiver])
        Object.assign(side, { bits_per_second: 1.01e12, min: 1e12, max: 1.02e12 });
    }
    writeFileSync(path.join(faster, 'latest.json'), JSON.stringify(kept));
    const next = checkout(faster);
    for (const name of ['Fetch the last good result', 'Run the benchmark']) {
      const step = runStep(steps.get(name), next, flags);
      assert.equal(step.status, 0, `${name}:\n${step.stdout}\n${step.stderr}`);
    }
    assert.ok(
      existsSync(path.join(next.dir, 'baseline', 'latest.json')),
      'the stand-in gh delivered the earlier result',
    );
    const compare = runStep(steps.get('Compare with the last good result'), next, flags);
    assert.equal(compare.status, 1, `the job fails on a sure regression:\n${compare.stdout}\n${compare.stderr}`);
    const regressed = readFileSync(next.summary, 'utf8');
    assert.match(regressed, /\n### Against the last good result\n\n```\nReceiver median bitrates, old run /);
    assert.match(regressed, / slower\n[\s\S]*REGRESSED: 1 of 1 cases got slower than the old run\.\n```\n$/);
  },
);
