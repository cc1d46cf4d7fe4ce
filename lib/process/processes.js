import net from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { execa, execaSync } from 'execa';
import { forgetChild, recordChild } from './child-ledger.js';
import { dyingWithParent } from './death-signal.js';
import { listeningInodes } from './socket-table.js';

// The child-process contract: every program cipherbench starts (relays,
// peers, iperf3, the built-in engine, the echo target, ip and tc, ssh, the
// ceiling child, a probe such as getconf or ss) starts here, through execa,
// and nowhere else in lib/ but run-again.js (a relay started by hand,
// started again with its node flags, without execa on its heap). Three
// shapes:
//   startProcess(label, file, args, { onLine }) a long-running child the
//     runner owns (a relay, a peer, iperf3 -s, the sink, the echo target,
//     the ceiling child): ready(readiness) says when it serves, from a
//     line of its own output, the kernel's socket table, or (on a --remote
//     host) a port that accepts; stop() ends it;
//   startCommand(file, args, { timeoutMs, signal }) a child whose result is
//     the point (the engine's client): killed on abort or timeout;
//   runCommand(file, args, { timeoutMs, input }) a short command run to its
//     end: resolves with its stdout, rejects with its own stderr;
//     runCommandSync the same for an 'exit' handler.
// Every child is also kept in a list until it ends, so that a CLI that
// must exit now (a second Ctrl-C) can end them all and wait for them first
// (stopEveryChild); execa's cleanup signals any child still running when
// this process exits, but cannot wait for it: no child outlives a run.
// A runner that is killed outright (SIGKILL, the OOM killer) runs no
// cleanup at all: every child is started to die with it where the system
// allows (death-signal.js), and the long-running ones are recorded
// (child-ledger.js), so that a later run clears any the kernel could not.

// A relay or iperf3 exits within milliseconds of SIGTERM; one that does not
// (hung, or stopped with SIGSTOP) gets SIGKILL after this long.
const STOP_GRACE_MS = 1000;
// A failure's reason carries this many of the child's last stderr lines,
// chosen from the last HISTORY_LINES it printed.
const TAIL_LINES = 5;
const HISTORY_LINES = 100;
// How often the listening table is read while a child without a ready line
// starts: short next to any start-up, and a read costs microseconds.
const LISTEN_POLL_MS = 25;

const running = new Set();
// `ledger`, the command as a person reads it, records a long-running child.
function tracked(subprocess, { ledger = null } = {}) {
  running.add(subprocess);
  if (ledger) recordChild(subprocess.pid, ledger);
  const forget = () => {
    running.delete(subprocess);
    if (ledger) forgetChild(subprocess.pid);
  };
  subprocess.then(forget, forget);
  return subprocess;
}

// How a leftover is named when a later run clears it: enough to know it
// (iperf3 -s -p 1083, a relay server), never a relay's --key.
const commandName = (file, args) =>
  [path.basename(file), ...args.slice(0, 4)].join(' ') + (args.length > 4 ? ' ...' : '');

// Sends every child still running SIGTERM (and, a child that ignores it,
// SIGKILL a second later) and resolves once all have ended, or after
// `timeoutMs` whatever is left: a process that is about to exit calls it.
export async function stopEveryChild({ timeoutMs = STOP_GRACE_MS * 2 } = {}) {
  const children = [...running];
  for (const child of children) child.kill('SIGTERM');
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.allSettled(children), late]);
  clearTimeout(timer);
}

// How a child ended, as a person reads it.
export function describeExit({ code, signal }) {
  if (signal) return `was killed by ${signal}`;
  return code === null || code === undefined ? 'could not be started' : `exited with code ${code}`;
}

// Starts one long-running child the runner owns (iperf3 -s, a relay). Its
// output is read line by line as it comes, so a full pipe never stalls it,
// and the last lines of its stderr are kept for a failure's reason;
// onLine(stream, line) hears each line too.
export function startProcess(label, file, args, { onLine = () => {} } = {}) {
  const subprocess = tracked(
    execa(...dyingWithParent(file, args), {
      stdin: 'ignore',
      buffer: false,
      reject: false,
      forceKillAfterDelay: STOP_GRACE_MS,
    }),
    { ledger: commandName(file, args) },
  );
  // Every line is kept, so a ready line that came before the wait started
  // is still seen; the children the runner starts say little.
  const lines = { stdout: [], stderr: [] };
  const stderrTail = [];
  const lineListeners = new Set([onLine]);
  for (const stream of ['stdout', 'stderr']) {
    readLines(subprocess[stream], (line) => {
      lines[stream].push(line);
      if (stream === 'stderr') {
        stderrTail.push(line);
        if (stderrTail.length > HISTORY_LINES) stderrTail.shift();
      }
      for (const listener of lineListeners) listener(stream, line);
    });
  }
  let exit = null;
  const exited = subprocess.then((result) => {
    exit = { code: result.exitCode ?? null, signal: result.signal ?? null };
    // A child that could not be spawned at all (ENOENT, EACCES) has no stderr.
    if (result.exitCode === undefined && !result.signal && result.originalMessage)
      stderrTail.push(result.originalMessage);
    return exit;
  });

  // Resolves null once the child is ready, or with why not: the child
  // exited first, `timeoutMs` passed, or `signal` was aborted. `readiness`
  // is { stdout: RegExp } or { stderr: RegExp } (a line the child prints
  // once it listens), or { listening: port } for a child that prints
  // nothing reliable: the kernel's table of listening sockets says so
  // ({ listening: port, udp: true }: a socket bound to the UDP port).
  // Both a line and `listening` wait for the line, then the port: for a
  // child whose line comes from a helper it starts (a plugin) before it
  // listens itself.
  // A relay client's readiness is never tested by connecting: a probe
  // through it would reach the target and spoil its next test. Only a
  // server on another host, whose socket table is not readable from here,
  // is { connectable: { host, port } }: a bare connect reaches no target.
  function ready(readiness, { timeoutMs, signal }) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (reason) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        lineListeners.delete(onLine);
        signal?.removeEventListener('abort', onAbort);
        resolve(reason);
      };
      const [stream, pattern] =
        Object.entries(readiness).find(([name]) => name === 'stdout' || name === 'stderr') ?? [];
      const watchPort = () => {
        if (readiness.connectable) watchConnectable(readiness.connectable, () => done).then(finish);
        else watchListening(readiness, subprocess.pid, () => done).then(finish);
      };
      const afterLine = () => {
        lineListeners.delete(onLine);
        if (readiness.listening === undefined) finish(null);
        else watchPort();
      };
      const onLine = (from, line) => {
        if (from === stream && pattern.test(line)) afterLine();
      };
      const onAbort = () => finish('run interrupted');
      const timer = setTimeout(() => finish(`${label} was not ready within ${timeoutMs / 1000} s`), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      exited.then((how) => finish(`${label} ${describeExit(how)} before it was ready`));
      if (!stream) watchPort();
      else if (lines[stream].some((line) => pattern.test(line))) afterLine();
      else lineListeners.add(onLine);
    });
  }

  return {
    label,
    pid: subprocess.pid,
    exited,
    get exit() {
      return exit;
    },
    ready,
    stderrTail: () => tellingLines(stderrTail),
    async stop() {
      if (exit === null) subprocess.kill('SIGTERM');
      return exited;
    },
  };
}

// The last lines of a child's stderr that say something to a person: a
// Node.js program that dies prints its error above ten stack frames and a
// version line, and the frames would push the error itself out of a short
// tail. Blank lines and caret markers go too.
export function tellingLines(lines, count = TAIL_LINES) {
  const telling = lines.filter(
    (line) => line.trim() !== '' && !/^\s+at /.test(line) && !/^\s*\^+\s*$/.test(line) && !/^Node\.js v\d/.test(line),
  );
  return telling.slice(-count);
}

// Resolves null once something listens on `port` in the network namespace
// of process `pid`, or with why that cannot be known; stops quietly once
// `over()` says the wait has ended.
async function watchListening({ listening: port, udp = false }, pid, over) {
  while (!over()) {
    const started = performance.now();
    const inodes = await listeningInodes(port, pid, { udp });
    const took = performance.now() - started;
    if (inodes?.size > 0) return null;
    // The child's tables are gone with the child when it dies at once:
    // its exit, not this, says why it was not ready.
    if (inodes === null && (await listeningInodes(port)) === null) {
      return `cannot tell when port ${port} listens: there is no /proc/net/tcp here (Linux only)`;
    }
    // A table of tens of thousands of TIME_WAIT lines (after a request
    // benchmark) takes the kernel 100 ms and more to write out: polled
    // every 25 ms regardless, each waiting relay would keep a core busy.
    await delay(Math.max(LISTEN_POLL_MS, 3 * took));
  }
  return null;
}

async function watchConnectable({ host, port }, over) {
  while (!over()) {
    const connected = await new Promise((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return null;
    await delay(LISTEN_POLL_MS * 4);
  }
  return null;
}

function readLines(stream, onLine) {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) onLine(line.replace(/\r$/, ''));
  });
  stream.on('end', () => {
    if (partial) onLine(partial);
  });
}

// Starts a child whose result is what it is run for (the traffic engine's
// client); `result` resolves with execa's result ({ stdout, stderr,
// exitCode, signal, timedOut }) once it ends, killed when `signal` aborts
// or after `timeoutMs`.
export function startCommand(file, args, { timeoutMs, signal }) {
  const subprocess = tracked(
    execa(...dyingWithParent(file, args), {
      stdin: 'ignore',
      reject: false,
      timeout: timeoutMs,
      cancelSignal: signal,
      forceKillAfterDelay: STOP_GRACE_MS,
    }),
    { ledger: commandName(file, args) },
  );
  return { pid: subprocess.pid, result: subprocess, kill: () => subprocess.kill('SIGTERM') };
}

// A short command run to its end (iproute2's ip and tc, which set up and
// tear down a link; ssh's checks; a probe): resolves with its stdout,
// rejects with an error carrying its own stderr and stdout. `input` is
// written to its stdin.
export async function runCommand(file, args, { timeoutMs = 10_000, input } = {}) {
  const result = await boundedRun(file, args, { timeoutMs, input });
  if (result.exitCode === 0) return result.stdout;
  throw commandError(file, args, result);
}

// What a program prints on both streams, whatever its exit status: a
// program's version, which some print on stderr (trojan -v) or with a
// usage text and a non-zero status. Null when it cannot be run or hangs.
export async function commandOutput(file, args, { timeoutMs = 2_000 } = {}) {
  const result = await boundedRun(file, args, { timeoutMs });
  if (result.timedOut || result.exitCode === undefined) return null;
  return `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
}

// One short command to its end, killed past `timeoutMs`, never rejecting:
// the caller reads the result.
const boundedRun = (file, args, { timeoutMs, input }) =>
  tracked(
    execa(...dyingWithParent(file, args), {
      ...(input === undefined ? { stdin: 'ignore' } : { input }),
      reject: false,
      timeout: timeoutMs,
      forceKillAfterDelay: STOP_GRACE_MS,
    }),
  );

// The same, synchronous, for the one place that cannot wait: the
// process's 'exit' handler, which removes what a crashed run set up.
export function runCommandSync(file, args) {
  const result = execaSync(file, args, { stdin: 'ignore', reject: false, timeout: 10_000 });
  if (result.exitCode !== 0) throw commandError(file, args, result);
  return result.stdout;
}

function commandError(file, args, result) {
  const said =
    String(result.stderr ?? '').trim() ||
    result.originalMessage ||
    describeExit({ code: result.exitCode, signal: result.signal });
  const error = new Error(`${file} ${args.join(' ')}: ${said}`);
  error.stderr = String(result.stderr ?? '');
  error.stdout = String(result.stdout ?? '');
  return error;
}
