#!/usr/bin/env node
// npm test: the pure-module tests of test/unit/ (seconds: a broken codec or
// printer shows before the long part starts), the other test files four at
// a time, then those of test/serial/ (which assume an idle machine) alone,
// and at the very end every failing test again, with its file, line and
// error. A CI log keeps only the tail of what a run prints: a failure among
// the 1,200 tests of the long part would otherwise be hidden behind the
// serial part's output. Exit status: 1 if any part failed.
// `--unit` (npm run test:unit) runs the test/unit/ part alone.
//
// Before the tests, `npm run lint` (ESLint, knip, tsc, the format check:
// seconds) when the project has one: its findings fail the run and it is
// named again at the very end, but the tests still run, so one run shows
// both.
//
// test/unit/'s files run with test/support/pure.js loaded: there, starting
// a process or opening a socket throws, so that tier stays fast and needs
// no program of this machine.
//
// Every file's process runs with --no-concurrent-recompilation, as the
// relays do (lib/relay/node-flags.js): with TurboFan compiling on a worker
// thread, process.exit() can hang for ever joining it (nodejs/node#54918,
// seen in a relay).
// A file's process ends when nothing of it is left open, as any Node
// program does: not --test-force-exit, which loses verdicts now and then
// (Node 20, 22 and 24: a file's last tests run but go unreported, exit 0;
// docs/reliability.md). A process that cannot end (a handle left open)
// holds its part past its minutes (below), and the part is stopped and failed
// with a line that says so, not left to run until CI's limit.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const {
  values: { root, unit },
} = parseArgs({
  options: {
    root: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
    unit: { type: 'boolean', default: false },
  },
});
const reporter = fileURLToPath(new URL('../test/support/failure-reporter.js', import.meta.url));
const pureGuard = fileURLToPath(new URL('../test/support/pure.js', import.meta.url));
const SHOWN = 40;

// minutes: several times what each part takes on a loaded 2-core machine.
const UNIT = { folder: 'test/unit', concurrency: 4, pure: true, minutes: 5 };
const parts = unit
  ? [UNIT]
  : [UNIT, { folder: 'test', concurrency: 4, minutes: 25 }, { folder: 'test/serial', concurrency: 1, minutes: 10 }];

const scratch = mkdtempSync(join(tmpdir(), 'cipherbench-test-'));
let failed = false;
const failures = [];
let lintFailed = false;
if (!unit && hasScript(root, 'lint')) {
  const { status, signal, error } = spawnSync('npm', ['run', 'lint'], { cwd: root, stdio: 'inherit' });
  if (error) throw error;
  if (signal) process.kill(process.pid, signal);
  lintFailed = status !== 0;
  failed ||= lintFailed;
}
try {
  for (const [index, { folder, concurrency, pure = false, minutes }] of parts.entries()) {
    const files = listed(join(root, folder)).map((name) => join(folder, name));
    if (files.length === 0) {
      // node --test with no file would look for tests everywhere.
      console.log(`# no test files in ${folder}`);
      continue;
    }
    const found = join(scratch, `failures-${index}.jsonl`);
    // The failure reporter writes to `found` itself and prints nothing; its
    // destination is a file, as Node 22 and later fsync it at the end, which
    // /dev/null refuses (EINVAL).
    const silent = join(scratch, `reporter-${index}.out`);
    const { status, signal, error } = spawnSync(
      process.execPath,
      [
        ...(pure ? ['--import', pureGuard] : []),
        '--no-concurrent-recompilation',
        '--test',
        `--test-concurrency=${concurrency}`,
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        `--test-reporter=${reporter}`,
        `--test-reporter-destination=${silent}`,
        ...files,
      ],
      {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, CIPHERBENCH_FAILURES_FILE: found },
        timeout: minutes * 60_000,
        killSignal: 'SIGINT',
      },
    );
    // Stopped at its time limit, the part still has its failures listed
    // at the end, as any failed part does.
    if (error?.code === 'ETIMEDOUT') {
      console.error(
        `npm test: the ${folder} part did not end within ${minutes} minutes and was stopped: ` +
          "a test file's process that cannot exit holds a handle open (the last file above that began and did not end)",
      );
    } else {
      if (error) throw error;
      if (signal) {
        // Interrupted (Ctrl-C, or a CI limit): say so and stop, as npm would.
        console.error(`npm test: the ${folder} part was stopped by ${signal}`);
        process.kill(process.pid, signal);
      }
    }
    if (status !== 0) failed = true;
    try {
      for (const line of readFileSync(found, 'utf8').split('\n')) if (line) failures.push(JSON.parse(line));
    } catch (readError) {
      if (readError.code !== 'ENOENT') throw readError;
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.log(`# ${failures.length} failing test${failures.length === 1 ? '' : 's'}, again:`);
  for (const { file, line, name, failureType, error } of failures.slice(0, SHOWN)) {
    const where = file ? `${relative(root, file)}${line ? `:${line}` : ''}` : 'unknown file';
    console.log(`#   ${where}  ${name}${failureType && failureType !== 'testCodeFailure' ? ` (${failureType})` : ''}`);
    for (const errorLine of error.split('\n')) console.log(`#     ${errorLine}`);
  }
  if (failures.length > SHOWN) console.log(`#   and ${failures.length - SHOWN} more, above`);
} else if (failed && !lintFailed) {
  console.log('# a part failed with no failing test reported: read the output above');
}
if (lintFailed) console.log('# npm run lint failed: its findings are at the top, before the tests');
process.exit(failed ? 1 : 0);

function hasScript(folder, name) {
  try {
    return typeof JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).scripts?.[name] === 'string';
  } catch (error) {
    if (error.code === 'ENOENT') return false;
    throw error;
  }
}

function listed(folder) {
  try {
    return readdirSync(folder)
      .filter((name) => name.endsWith('.test.js'))
      .sort();
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}
