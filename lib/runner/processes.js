import { execa } from 'execa';

// A relay or iperf3 exits within milliseconds of SIGTERM; one that does not
// (hung, or stopped with SIGSTOP) gets SIGKILL after this long.
const STOP_GRACE_MS = 1000;
const TAIL_LINES = 3;

// How a child ended, as a person reads it.
export function describeExit({ code, signal }) {
  if (signal) return `was killed by ${signal}`;
  return code === null || code === undefined ? 'could not be started' : `exited with code ${code}`;
}

// Starts one long-running child the runner owns (iperf3 -s, a relay). Its
// output is read line by line as it comes, so a full pipe never stalls it,
// and the last lines of its stderr are kept for a failure's reason. execa's
// cleanup kills it if this process exits first, so none is left behind.
export function startProcess(label, file, args) {
  const subprocess = execa(file, args, {
    stdin: 'ignore',
    buffer: false,
    reject: false,
    forceKillAfterDelay: STOP_GRACE_MS,
  });
  const stdoutLines = [];
  const stderrTail = [];
  const lineListeners = new Set();
  readLines(subprocess.stdout, (line) => {
    stdoutLines.push(line);
    for (const listener of lineListeners) listener(line);
  });
  readLines(subprocess.stderr, (line) => {
    stderrTail.push(line);
    if (stderrTail.length > TAIL_LINES) stderrTail.shift();
  });
  let exit = null;
  const exited = subprocess.then((result) => {
    exit = { code: result.exitCode ?? null, signal: result.signal ?? null };
    // A child that could not be spawned at all (ENOENT, EACCES) has no stderr.
    if (result.exitCode === undefined && !result.signal && result.originalMessage) stderrTail.push(result.originalMessage);
    return exit;
  });

  // Resolves null once a stdout line matches `pattern`, or with why not:
  // the child exited first, `timeoutMs` passed, or `signal` was aborted.
  // Readiness is read from the child's own words, never by connecting: a
  // probe through a ready relay would reach iperf3 -s and spoil its next test.
  function ready(pattern, { timeoutMs, signal }) {
    if (stdoutLines.some((line) => pattern.test(line))) return Promise.resolve(null);
    return new Promise((resolve) => {
      const finish = (reason) => {
        clearTimeout(timer);
        lineListeners.delete(onLine);
        signal?.removeEventListener('abort', onAbort);
        resolve(reason);
      };
      const onLine = (line) => {
        if (pattern.test(line)) finish(null);
      };
      const onAbort = () => finish('run interrupted');
      const timer = setTimeout(() => finish(`${label} was not ready within ${timeoutMs / 1000} s`), timeoutMs);
      lineListeners.add(onLine);
      signal?.addEventListener('abort', onAbort, { once: true });
      exited.then((how) => finish(`${label} ${describeExit(how)} before it was ready`));
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
    stderrTail: () => [...stderrTail],
    async stop() {
      if (exit === null) subprocess.kill('SIGTERM');
      return exited;
    },
  };
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
