import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { descendants } from '../../benchmark/programs/support/proc-stats.js';
import { CLI } from './processes.js';

// The CLI as a person runs it, for tests: a child process in a folder of
// its own, with every process below it recorded while it runs.
const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cipherbench-cli-')));
process.once('exit', () => rmSync(root, { recursive: true, force: true }));
let folders = 0;
// `cipherbench [run] [cases] [options]`, not another command nor --help.
const COMMANDS =
  /^(ciphers|compare|history|report|relay|presets|environment|key|latency|send|sink|echo|udp-echo|http-target|tls-site|plumbing|bare-relay|traffic|help)$/;
// Right after the command's name (or first, for the default command), so
// a test's last flag still lacks its value when it means to.
function testDefaults(args) {
  const given = (pattern) => args.some((arg) => pattern.test(arg));
  const added = [
    ...(given(/^--(no-)?remeasure\b/) ? [] : ['--remeasure', '0']),
    ...(given(/^--(repeat|full|confidence|smoke)\b/) ? [] : ['--repeat', '1']),
  ];
  return /^(run|requests)$/.test(args[0]) ? [args[0], ...added, ...args.slice(1)] : [...added, ...args];
}
const isRun = (args) =>
  !args.includes('--help') && !args.includes('-h') && !args.includes('--version') && !COMMANDS.test(args[0] ?? '');

export const emptyFolder = () => {
  const dir = path.join(root, `f${folders++}`);
  mkdirSync(dir);
  return dir;
};

// A fresh folder whose cases.json holds `cases`, for a run started there.
export const casesFolder = (cases) => {
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify(cases));
  return cwd;
};

// `run` of that cases.json over UDP at a fixed 20 Mbit/s for 1 s, no
// ceilings, the result on stdout as JSON and not archived.
export const UDP_RUN = [
  'run',
  'cases.json',
  '--udp',
  '--rate',
  '20M',
  '--duration',
  '1',
  '--no-ceiling',
  '--json',
  '--no-archive',
];

// Runs the CLI to its end; `during(child)` may act on it while it runs.
// Every process below it is recorded all along, to check none outlives it.
// A run is one round and measures a disturbed run again only when the
// test asks: test files run side by side, so most runs here are disturbed,
// and measuring each again, or in three rounds, would only lengthen the
// suite (test/serial/runner-disturbed.test.js tests re-measuring; tests
// that give --repeat, --full or --confidence get what they ask).
export function runCli(
  args,
  { cwd = emptyFolder(), env = {}, during, command = process.execPath, commandArgs = [CLI] } = {},
) {
  const ours = command === process.execPath && commandArgs.at(-1) === CLI;
  const asked = ours && isRun(args) ? testDefaults(args) : args;
  // Detached: a group of its own, which a test may signal whole, as a
  // terminal's Ctrl-C does.
  const child = spawn(command, [...commandArgs, ...asked], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data) => {
    stdout += data;
  });
  child.stderr.setEncoding('utf8').on('data', (data) => {
    stderr += data;
  });
  // Read again on every pass: a child caught between fork and exec still
  // shows this CLI's command line.
  const seen = new Map();
  const watch = setInterval(() => {
    for (const pid of descendants(child.pid)) seen.set(pid, commandLine(pid) || seen.get(pid) || '');
  }, 20);
  const output = () => ({ stdout, stderr });
  during?.(child, output);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearInterval(watch);
      resolve({ code, signal, stdout, stderr, cwd, descendants: [...seen.keys()], commands: [...seen.values()] });
    });
  });
}

export async function waitFor(read, pattern, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; got:\n${read()}`);
    await delay(20);
  }
}

export const archivedJson = (cwd, dir = 'reports') => {
  const files = readdirSync(path.join(cwd, dir)).filter((name) => name.endsWith('.json'));
  assert.equal(files.length, 1, `one JSON archive in ${dir}: ${files}`);
  return JSON.parse(readFileSync(path.join(cwd, dir, files[0]), 'utf8'));
};

// A process's command line, spaced; '' once it has gone.
export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
