import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { commandLine, emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';
import { CLI } from './support/processes.js';
import { descendants } from '../benchmark/programs/support/proc-stats.js';
import { assertAllGone, isAlive, isRunning } from './support/process-tree.js';
import { requirePrograms } from './support/programs.js';

// Ctrl-C, SIGTERM and a closing terminal's SIGHUP at random moments of a
// run (environment, relay start, measurement, teardown, between cases):
// each time every child is gone, the run exits 128 + the signal's number
// with a whole text and JSON report marked incomplete, and an earlier
// report in the same folder, from the same day, is untouched.
const TRIES = 6;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const exitCode = (signal) => 128 + os.constants.signals[signal];
// SIGINT and SIGHUP reach the whole group, as a terminal sends them; SIGTERM
// the CLI alone, as kill does.
const toGroup = (signal) => signal !== 'SIGTERM';
const LOADING_HOOK = fileURLToPath(new URL('./support/loading-hook.js', import.meta.url));
const STUBBORN = fileURLToPath(new URL('./support/stubborn-listener.js', import.meta.url));
const chain = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const localDay = (date = new Date()) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

test(
  `SIGINT, SIGTERM and SIGHUP at ${TRIES} random moments leave whole reports and no process`,
  { timeout: 180_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    writeFileSync(
      path.join(cwd, 'cases.js'),
      `export default ${JSON.stringify([chain('aes-128-gcm'), chain('aes-256-gcm'), chain('chacha20-ietf-poly1305')])};\n`,
    );
    const reports = path.join(cwd, 'reports');
    mkdirSync(reports);
    const earlier = [`${localDay()}.txt`, `${localDay()}.json`].map((name) => path.join(reports, name));
    writeFileSync(earlier[0], 'an earlier run\n');
    writeFileSync(earlier[1], '{"earlier":true}\n');
    const earlierHashes = earlier.map(sha256);

    for (let i = 0; i < TRIES; i++) {
      const signal = SIGNALS[i % SIGNALS.length];
      // Counted from the moment the CLI can catch a signal (loading-hook.js):
      // before then Node is still bootstrapping, when no Node program can.
      // The first two land in start-up (module loading, the environment, the
      // first relays), the rest anywhere up to past the second case's test.
      const afterMs = i < 2 ? Math.floor(Math.random() * 400) : Math.floor(Math.random() * 3400);
      const loading = path.join(cwd, `loading-${i}`);
      const before = new Set(readdirSync(reports));
      const result = await runCli(['--duration', '1', '--no-ceiling', ...(await freePortsFlag())], {
        cwd,
        commandArgs: ['--import', LOADING_HOOK, CLI],
        env: { CIPHERBENCH_TEST_LOADING: loading },
        during: async (child) => {
          while (!existsSync(loading) && child.exitCode === null) await delay(5);
          await delay(afterMs);
          try {
            process.kill(toGroup(signal) ? -child.pid : child.pid, signal);
          } catch {
            // The run ended first.
          }
        },
      });
      const what = `try ${i}: ${signal} ${afterMs} ms after the CLI could catch it`;
      t.diagnostic(`${what}: exit ${result.code}`);
      assertAllGone(result.descendants, `${what}: child`);

      const added = readdirSync(reports)
        .filter((name) => !before.has(name))
        .sort();
      assert.equal(added.length, 2, `${what}: one .json and one .txt added: ${added}\n${result.stderr}`);
      const [jsonName, textName] = added;
      assert.equal(jsonName.replace(/\.json$/, ''), textName.replace(/\.txt$/, ''), `${what}: a pair`);
      const archived = JSON.parse(readFileSync(path.join(reports, jsonName), 'utf8'));
      const text = readFileSync(path.join(reports, textName), 'utf8');
      assert.match(text, /(Done in|Interrupted by SIG[A-Z]+ after) [\d.]+s\.\n?$/, `${what}: the text report is whole`);
      if (result.code === 0) {
        assert.equal(archived.complete, true, `${what}: finished before the signal`);
      } else {
        assert.equal(result.code, exitCode(signal), `${what}: exit code\n${result.stderr}`);
        assert.equal(archived.complete, false, what);
        assert.equal(archived.interrupted, signal, what);
        assert.match(text, /INCOMPLETE/, what);
        assert.match(text, new RegExp(`\nInterrupted by ${signal} after [\\d.]+s\\.\n?$`), `${what}: not "Done in"`);
        for (const entry of archived.cases) assert.ok(['ok', 'skipped', 'failed'].includes(entry.status), what);
      }
    }
    assert.deepEqual(earlier.map(sha256), earlierHashes, 'the earlier report of the same day is untouched');
  },
);

// The moment the random tries above can only hit by luck: the CLI has held
// the signals and is still loading its modules (held here for 1.5 s by the
// hook). The run must start already stopped and still write its report.
for (const signal of SIGNALS) {
  test(
    `${signal} while the CLI is still loading: a whole report of skipped cases, exit ${exitCode(signal)}`,
    { timeout: 60_000 },
    async (t) => {
      if (!requirePrograms(t, 'iperf3')) return;
      const cwd = emptyFolder();
      writeFileSync(
        path.join(cwd, 'cases.js'),
        `export default ${JSON.stringify([chain('aes-128-gcm'), chain('aes-256-gcm')])};\n`,
      );
      const loading = path.join(cwd, 'loading');
      const result = await runCli(['--duration', '1', '--no-ceiling', ...(await freePortsFlag())], {
        cwd,
        commandArgs: ['--import', LOADING_HOOK, CLI],
        env: { CIPHERBENCH_TEST_LOADING: loading, CIPHERBENCH_TEST_HOLD_MS: '1500' },
        during: async (child) => {
          while (!existsSync(loading) && child.exitCode === null) await delay(5);
          process.kill(toGroup(signal) ? -child.pid : child.pid, signal);
        },
      });
      assert.equal(result.code, exitCode(signal), `${result.signal ?? ''}\n${result.stderr}`);
      const reports = path.join(cwd, 'reports');
      const json = readdirSync(reports).find((name) => name.endsWith('.json'));
      const archived = JSON.parse(readFileSync(path.join(reports, json), 'utf8'));
      assert.equal(archived.complete, false);
      assert.equal(archived.interrupted, signal);
      assert.deepEqual(
        archived.cases.map((entry) => [entry.status, entry.reason]),
        [
          ['skipped', 'run interrupted'],
          ['skipped', 'run interrupted'],
        ],
      );
      assert.match(
        readFileSync(path.join(reports, json.replace(/\.json$/, '.txt')), 'utf8'),
        /INCOMPLETE[\s\S]*Interrupted by SIG[A-Z]+ after [\d.]+s\.\n?$/,
      );
      assertAllGone(result.descendants);
    },
  );
}

// Two interrupts: at once (GNU timeout signals the child and its group,
// npm forwards what it gets), or a person's second Ctrl-C a moment later.
// The second hurries the run, but the cases measured so far are still
// archived, and the CLI says where and how many cases the report holds.
const DOUBLE_TRIES = 4;
test(
  `two SIGINTs at ${DOUBLE_TRIES} random moments, at once or apart: each leaves a report naming what it holds`,
  { timeout: 180_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    writeFileSync(
      path.join(cwd, 'cases.js'),
      `export default ${JSON.stringify([chain('aes-128-gcm'), chain('aes-256-gcm'), chain('chacha20-ietf-poly1305')])};\n`,
    );
    const reports = path.join(cwd, 'reports');
    mkdirSync(reports);
    for (let i = 0; i < DOUBLE_TRIES; i++) {
      const gapMs = i % 2 === 0 ? 0 : 200 + Math.floor(Math.random() * 800);
      // Late enough, mostly, that a case has been measured and must be kept.
      const afterMs = 1500 + Math.floor(Math.random() * 3000);
      const loading = path.join(cwd, `loading-${i}`);
      const before = new Set(readdirSync(reports));
      const result = await runCli(['--duration', '1', '--no-ceiling', ...(await freePortsFlag())], {
        cwd,
        commandArgs: ['--import', LOADING_HOOK, CLI],
        env: { CIPHERBENCH_TEST_LOADING: loading },
        during: async (child) => {
          while (!existsSync(loading) && child.exitCode === null) await delay(5);
          await delay(afterMs);
          try {
            process.kill(-child.pid, 'SIGINT');
            if (gapMs > 0) await delay(gapMs);
            process.kill(-child.pid, 'SIGINT');
          } catch {
            // The run ended first.
          }
        },
      });
      const what = `try ${i}: two SIGINTs ${gapMs} ms apart, ${afterMs} ms after the CLI could catch them`;
      t.diagnostic(`${what}: exit ${result.code}`);
      assertAllGone(result.descendants, `${what}: child`);
      assertArchivedAndNamed(reports, before, result, what);
    }
  },
);

// A second Ctrl-C cannot wait for a child's orderly stop, but it must
// still not leave one behind: here both relays ignore SIGTERM, so only the
// CLI's SIGKILL, sent before it exits, ends them.
test(
  'a second SIGINT while relays that ignore SIGTERM are stopping: both are killed before the CLI exits',
  { timeout: 60_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    const readyDir = path.join(cwd, 'stubborn');
    mkdirSync(readyDir);
    const command = `${process.execPath} ${STUBBORN}`;
    writeFileSync(
      path.join(cwd, 'cases.js'),
      `export default ${JSON.stringify([
        {
          impl: 'command',
          label: 'stubborn',
          server: `${command} {listen}`,
          client: `${command} {listen} {server} {forward}`,
        },
      ])};\n`,
    );
    let started = [];
    // Should the CLI leave them, the test must not.
    t.after(() => started.forEach((pid) => isAlive(pid) && process.kill(pid, 'SIGKILL')));
    const result = await runCli(['--duration', '5', '--no-ceiling', '--no-archive', ...(await freePortsFlag())], {
      cwd,
      env: { CIPHERBENCH_TEST_STUBBORN_DIR: readyDir },
      during: async (child) => {
        while (readdirSync(readyDir).length < 2 && child.exitCode === null) await delay(10);
        started = readdirSync(readyDir).map(Number);
        process.kill(-child.pid, 'SIGINT');
        // Apart, as two signals sent at once may arrive as one; within the
        // second the first one's stop waits before its SIGKILL.
        await delay(300);
        process.kill(-child.pid, 'SIGINT');
      },
    });
    assert.equal(started.length, 2, `both relays listened\n${result.stderr}`);
    assert.equal(result.code, 130, result.stderr);
    assertAllGone(started, 'relay that ignored SIGTERM');
    assertAllGone(result.descendants, 'child');
  },
);

// Exactly what the issue's user typed: `timeout -s INT 20 npm run benchmark`,
// with npm between timeout and the CLI, forwarding the signals it gets.
test(
  'timeout -s INT around npm run benchmark: the measured cases are archived and named',
  { timeout: 120_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3', 'npm', 'timeout')) return;
    const cwd = emptyFolder();
    writeFileSync(
      path.join(cwd, 'cases.js'),
      `export default ${JSON.stringify([chain('aes-128-gcm'), chain('aes-256-gcm'), chain('chacha20-ietf-poly1305'), chain('aes-192-gcm')])};\n`,
    );
    writeFileSync(
      path.join(cwd, 'package.json'),
      JSON.stringify({ name: 'a-user', private: true, scripts: { benchmark: `node ${CLI} run` } }),
    );
    const reports = path.join(cwd, 'reports');
    mkdirSync(reports);
    const result = await runCli(
      [
        '-s',
        'INT',
        '6',
        'npm',
        'run',
        'benchmark',
        '--',
        '--duration',
        '1',
        '--no-ceiling',
        ...(await freePortsFlag()),
      ],
      {
        cwd,
        command: 'timeout',
        commandArgs: [],
      },
    );
    t.diagnostic(`exit ${result.code}`);
    assertAllGone(result.descendants, 'child');
    assertArchivedAndNamed(reports, new Set(), result, 'timeout -s INT 6 npm run benchmark');
  },
);

function assertArchivedAndNamed(reports, before, result, what) {
  const added = readdirSync(reports)
    .filter((name) => !before.has(name))
    .sort();
  assert.equal(added.length, 2, `${what}: one .json and one .txt added: ${added}\n${result.stderr}`);
  const [jsonName, textName] = added;
  const archived = JSON.parse(readFileSync(path.join(reports, jsonName), 'utf8'));
  const text = readFileSync(path.join(reports, textName), 'utf8');
  assert.match(text, /(Done in|Interrupted by SIG[A-Z]+ after) [\d.]+s\.\n?$/, `${what}: the text report is whole`);
  const named = result.stderr.match(
    /report archived: (\S+) and (\S+?)( \(incomplete: (\d+) of (\d+) cases measured\))?\n/,
  );
  assert.ok(named, `${what}: says where\n${result.stderr}`);
  assert.equal(path.basename(named[2]), jsonName, `${what}: names the archive it wrote`);
  if (archived.complete) return;
  assert.equal(archived.interrupted, 'SIGINT', what);
  const measured = archived.cases.filter((entry) => entry.status === 'ok').length;
  assert.deepEqual(
    [Number(named[4]), Number(named[5])],
    [measured, archived.cases.length],
    `${what}: says how many cases it holds`,
  );
  assert.match(
    text,
    new RegExp(`INCOMPLETE: interrupted by SIGINT; ${measured} of ${archived.cases.length} cases measured`),
    what,
  );
}

// A runner killed outright runs no cleanup of its own: its children must
// die with it (setpriv --pdeathsig on Linux), at any moment of the run.
const KILL_TRIES = 3;
test(`SIGKILL of the runner at ${KILL_TRIES} random moments: no child outlives it`, { timeout: 120_000 }, async (t) => {
  if (!requirePrograms(t, 'iperf3', 'setpriv')) return;
  const cwd = emptyFolder();
  writeFileSync(
    path.join(cwd, 'cases.js'),
    `export default ${JSON.stringify([chain('aes-128-gcm'), chain('aes-256-gcm')])};\n`,
  );
  for (let i = 0; i < KILL_TRIES; i++) {
    let killedWith = [];
    const result = await runCli(['--duration', '2', '--no-ceiling', '--no-archive', ...(await freePortsFlag())], {
      cwd,
      during: async (child) => {
        // Once the first case's relays have started (after the noise
        // floor's direct runs), at a random moment of that case or of what
        // follows it.
        while (
          !descendants(child.pid).some((pid) => commandLine(pid).includes('relay server')) &&
          child.exitCode === null
        )
          await delay(10);
        await delay(Math.floor(Math.random() * 2500));
        killedWith = descendants(child.pid).map((pid) => `${pid} ${commandLine(pid)}`);
        // The CLI alone: its group is not signalled, as the OOM killer does.
        process.kill(child.pid, 'SIGKILL');
      },
    });
    const what = `try ${i}: SIGKILL with children ${killedWith.join('; ')}`;
    t.diagnostic(what);
    assert.equal(result.signal, 'SIGKILL', what);
    assert.ok(killedWith.length > 0, `${what}: children were running when it was killed`);
    // The kernel delivers the death signal as the runner exits; the
    // orphans are reaped a moment later.
    const deadline = Date.now() + 3000;
    while (result.descendants.some(isAlive) && Date.now() < deadline) await delay(50);
    assertAllGone(result.descendants, `${what}: child`);
  }
});

// A child that outlived a runner nobody stopped (here: started without the
// death signal, as on a machine without setpriv) holds the target port.
// The next run clears it because the dead runner's ledger names it, pid and
// start time, and says so; a stranger on a port is never touched.
test('a run clears the iperf3 -s a killed run left on its port, and says so', { timeout: 60_000 }, async (t) => {
  if (!requirePrograms(t, 'iperf3')) return;
  const ports = await freePortsFlag();
  const targetPort = Number(ports[1].split(',')[2]);
  const stranded = path.join(emptyFolder(), 'stranded.mjs');
  const ledger = new URL('../lib/process/child-ledger.js', import.meta.url).href;
  // A stand-in for a runner: records its iperf3 -s as processes.js does,
  // says its pid, and waits to be killed.
  writeFileSync(
    stranded,
    `
    import { spawn } from 'node:child_process';
    import { recordChild } from ${JSON.stringify(ledger)};
    const iperf3 = spawn('iperf3', ['-s', '-p', '${targetPort}'], { stdio: 'ignore', detached: true });
    recordChild(iperf3.pid, 'iperf3 -s -p ${targetPort}');
    console.log(iperf3.pid);
    setInterval(() => {}, 1000);
  `,
  );
  // A ledger folder of this test's own (the ledger lives under TMPDIR): any
  // other cipherbench run of this user (the suite's other files, a benchmark
  // beside it) clears a dead runner's leftovers too, and can get there first.
  const env = { ...process.env, TMPDIR: emptyFolder() };
  const runner = spawn(process.execPath, [stranded], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const leftover = Number(await new Promise((resolve) => runner.stdout.once('data', resolve)));
  t.after(() => isAlive(leftover) && process.kill(leftover, 'SIGKILL'));
  while (!(await portBusy(targetPort))) await delay(20);
  runner.kill('SIGKILL');
  await new Promise((resolve) => runner.once('exit', resolve));
  assert.ok(isRunning(leftover), 'the leftover outlived its runner');

  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.js'), `export default ${JSON.stringify([chain('aes-128-gcm')])};\n`);
  const result = await runCli(['--duration', '1', '--no-ceiling', '--no-archive', ...ports], { cwd, env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    new RegExp(
      `warning: ended pid ${leftover} \\(iperf3 -s -p ${targetPort}\\), left running by an earlier cipherbench run that was killed`,
    ),
  );
  // Dead; its reaper (init here) may not have collected it yet.
  assert.ok(!isRunning(leftover), 'the leftover is gone');
});

function portBusy(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
