// How a run ends when it is stopped at a random moment, the way a person or
// a machine stops one: SIGKILL, SIGHUP (a closing terminal), SIGTERM (kill)
// and two SIGINTs (Ctrl-C twice, or GNU timeout and then npm). Each trial
// runs `cipherbench run` on three aes cases (1 s each, no ceiling, free
// ports) in a folder of its own and sends the signal 0 to 15 s after start,
// covering start-up, every case and the report. Afterwards it checks that
// no process the run started is left, and for every signal but SIGKILL that
// the run archived a whole report (marked incomplete unless it finished
// first) and exited 128 + the signal's number. A SIGKILLed runner cannot
// write anything; its children end by their death signal (setpriv), and the
// next trial's run finds no port taken.
//   node benchmark/programs/signal-trials.js [--trials 10] [--signals SIGKILL,SIGHUP,SIGTERM,double-SIGINT]
// Prints one line per trial and a summary; exits 1 if any trial failed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeProcess, descendants, isRunning } from './support/proc-stats.js';
import { CLI, freePort } from './support/processes.js';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const trials = Number(option('--trials', 10));
const signals = option('--signals', 'SIGKILL,SIGHUP,SIGTERM,double-SIGINT').split(',');
const LATEST_MS = 15_000;
const chain = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const CASES = [chain('aes-128-gcm'), chain('aes-256-gcm'), chain('chacha20-ietf-poly1305')];

async function trial(kind, afterMs) {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'cipherbench-signal-'));
  writeFileSync(path.join(cwd, 'cases.js'), `export default ${JSON.stringify(CASES)};\n`);
  const ports = [await freePort(), await freePort(), await freePort()].join(',');
  // Its own process group, as a terminal gives a foreground job: SIGHUP and
  // SIGINT reach the whole group, SIGTERM and SIGKILL the runner alone.
  const child = spawn(process.execPath, [CLI, 'run', '--duration', '1', '--no-ceiling', '--ports', ports], {
    cwd,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (data) => (stderr += data));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const seen = new Set();
  const started = Date.now();
  let ended = false;
  exited.then(() => (ended = true));
  while (!ended && Date.now() - started < afterMs) {
    for (const pid of descendants(child.pid)) seen.add(pid);
    await sleep(20);
  }
  for (const pid of ended ? [] : descendants(child.pid)) seen.add(pid);
  if (!ended) {
    try {
      if (kind === 'SIGKILL') process.kill(child.pid, 'SIGKILL');
      else if (kind === 'SIGTERM') process.kill(child.pid, 'SIGTERM');
      else if (kind === 'SIGHUP') process.kill(-child.pid, 'SIGHUP');
      else {
        process.kill(-child.pid, 'SIGINT');
        await sleep(Math.random() < 0.5 ? 0 : 200 + Math.random() * 800);
        process.kill(-child.pid, 'SIGINT');
      }
    } catch {
      // It ended in between.
    }
  }
  const { code, signal } = await exited;
  // A killed runner's children get their death signal from the kernel at
  // once; give them the moment they need to exit.
  await sleep(kind === 'SIGKILL' ? 1000 : 200);
  const problems = [...seen].filter(isRunning).map((pid) => `left running: ${describeProcess(pid)}`);
  const reports = path.join(cwd, 'reports');
  const files = (() => {
    try {
      return readdirSync(reports);
    } catch {
      return [];
    }
  })();
  let outcome;
  if (kind === 'SIGKILL') {
    outcome = signal === 'SIGKILL' ? 'killed' : `finished first (exit ${code})`;
  } else {
    const json = files.find((name) => name.endsWith('.json'));
    const text = files.find((name) => name.endsWith('.txt'));
    if (!json || !text) problems.push(`no report pair in ${reports}: ${files.join(', ')}`);
    else {
      const result = JSON.parse(readFileSync(path.join(reports, json), 'utf8'));
      const whole = /Done in [\d.]+s\.\n?$/.test(readFileSync(path.join(reports, text), 'utf8'));
      if (!whole) problems.push('the text report is not whole');
      const measured = result.cases.filter((entry) => entry.status === 'ok').length;
      const sent = kind === 'double-SIGINT' ? 'SIGINT' : kind;
      const expected = 128 + os.constants.signals[sent];
      if (code === 0 && result.complete) outcome = 'finished first';
      else {
        if (code !== expected) problems.push(`exit ${code ?? signal}, not ${expected}`);
        if (result.complete !== false || result.interrupted !== sent) problems.push('report not marked interrupted');
        outcome = `exit ${code}, ${measured} of ${result.cases.length} cases measured and archived`;
      }
    }
  }
  rmSync(cwd, { recursive: true, force: true });
  return { outcome, problems, seen: seen.size, stderr };
}

let failed = 0;
const summary = [];
for (const kind of signals) {
  let passed = 0;
  for (let i = 0; i < trials; i++) {
    const afterMs = Math.floor(Math.random() * LATEST_MS);
    const { outcome, problems, seen, stderr } = await trial(kind, afterMs);
    const ok = problems.length === 0;
    if (ok) passed += 1;
    else failed += 1;
    console.log(
      `${kind} at ${afterMs} ms: ${outcome}; ${seen} processes seen; ${ok ? 'ok' : `FAILED: ${problems.join('; ')}`}`,
    );
    if (!ok && stderr) console.log(stderr.trim().split('\n').slice(-5).join('\n'));
  }
  summary.push(`${kind}: ${passed} of ${trials}`);
}
console.log(summary.join('; '));
process.exitCode = failed > 0 ? 1 : 0;
