import { fileURLToPath } from 'node:url';
import { clockTicksPerSecond } from '../process/process-cost.js';
import { requireProgram } from '../process/programs.js';
import { formatEndpoint } from '../relay/endpoint.js';
import { startCommand } from '../process/processes.js';

// wrk (Will Glozer's HTTP benchmarking tool, C) as the request workload's
// load generator, as iperf3 is the bulk stream's: it costs the machine a
// small part of what the built-in Node client does per request, so on a
// machine with few cores the relays it measures keep the CPU.
// (docs/requests.md, "The engines".) It reaches a case through the tunnel
// inbound (requests to the target, which the relay client forwards) and the
// plain HTTP-proxy kind (absolute-URI requests, set by the script); it does
// not speak SOCKS5 or CONNECT.
export const WRK_KINDS = Object.freeze(['tunnel', 'http-proxy']);
const INSTALL_HINT = 'install it with `sudo apt-get install wrk` (Debian/Ubuntu) or `brew install wrk` (macOS)';
const SCRIPT = fileURLToPath(new URL('./wrk-report.lua', import.meta.url));
const REPORT_LINE = /^cipherbench-wrk (\{.*\})$/m;
// One thread: a single epoll loop in C answers far more requests a second
// than any relay pair here, and every further thread is a core's share the
// relays could have had.
const THREADS = 1;
// wrk's own deadline for a request, as the built-in client's.
const TIMEOUT_SECONDS = 10;

export const findWrk = ({ wrkPath, env = process.env } = {}) =>
  requireProgram('wrk', { givenPath: wrkPath, env, hint: INSTALL_HINT, otherwise: 'run with --engine node' });

// wrk's command line: `concurrency` connections on one thread for a whole
// number of seconds (wrk takes no fraction), to the entry at host:port;
// the script's arguments after `--`.
export function wrkArgs({
  host = '127.0.0.1',
  port,
  kind = 'tunnel',
  target,
  concurrency,
  seconds,
  newConnections = false,
}) {
  if (!WRK_KINDS.includes(kind)) throw new RangeError(`wrkArgs: wrk cannot speak the ${kind} inbound`);
  const proxied = kind === 'http-proxy' ? formatEndpoint(target) : '';
  return [
    '-t',
    String(Math.min(THREADS, concurrency)),
    '-c',
    String(concurrency),
    '-d',
    `${seconds}s`,
    '--timeout',
    `${TIMEOUT_SECONDS}s`,
    '-s',
    SCRIPT,
    `http://${formatEndpoint({ host, port })}/`,
    '--',
    proxied,
    newConnections ? 'close' : 'keep-alive',
  ];
}

// The script's JSON line, as the request workload's figures (the built-in
// client's shape: traffic/request-load.js) and wrk's own CPU seconds. wrk
// counts a response as a request whatever its status; one other than 2xx
// or 3xx is a badResponse here, as the built-in client has it. It does not
// count connections: null.
export function parseWrkReport(stdout, { kind, concurrency, newConnections, warmupSeconds, ticksPerSecond }) {
  const line = REPORT_LINE.exec(String(stdout));
  if (!line) return null;
  const report = JSON.parse(line[1]);
  const seconds = report.durationMicroseconds / 1e6;
  const ok = report.requests - report.errors.status;
  const ms = (microseconds) => microseconds / 1000;
  const latency = report.latencyMicroseconds;
  const { user, system } = report.cpuTicks;
  return {
    kind,
    concurrency,
    newConnections,
    seconds,
    warmupSeconds,
    ok,
    errors: {
      refused: report.errors.connect,
      reset: report.errors.read + report.errors.write,
      timeout: report.errors.timeout,
      badResponse: report.errors.status,
    },
    connections: null,
    requestsPerSecond: ok / seconds,
    latency:
      ok === 0
        ? null
        : {
            unit: 'ms',
            count: ok,
            mean: ms(latency.mean),
            stdev: ms(latency.stdev),
            p50: ms(latency.p50),
            p90: ms(latency.p90),
            p99: ms(latency.p99),
            p999: ms(latency.p999),
            max: ms(latency.max),
          },
    generatorCpuSeconds: user < 0 ? null : (user + system) / ticksPerSecond,
  };
}

// The request workload with wrk: a run of `warmupSeconds` that is not
// counted (wrk has no warm-up of its own), onMeasuring(), then the counted
// run of `durationSeconds`. Resolves with the figures, or { reason } when
// wrk failed or printed no report. `track(role, pid, command)` is told of
// each wrk started.
export async function measureWithWrk({
  wrkPath,
  host,
  port,
  kind,
  target,
  concurrency,
  durationSeconds,
  warmupSeconds = 0,
  newConnections = false,
  onMeasuring = () => {},
  signal,
  track = () => {},
}) {
  const ticksPerSecond = await clockTicksPerSecond();
  const once = async (seconds) => {
    const args = wrkArgs({ host, port, kind, target, concurrency, seconds, newConnections });
    const started = startCommand(wrkPath, args, { timeoutMs: (seconds + TIMEOUT_SECONDS + 10) * 1000, signal });
    track('wrk', started.pid, [wrkPath, ...args]);
    const result = await started.result;
    const figures = parseWrkReport(result.stdout, { kind, concurrency, newConnections, warmupSeconds, ticksPerSecond });
    if (figures) return figures;
    const said = String(result.stderr || result.stdout || '')
      .trim()
      .split('\n')
      .filter(Boolean)
      .pop();
    return {
      reason: `wrk ${result.timedOut ? 'did not finish in time' : `printed no report${said ? `: ${said}` : ''}`}`,
    };
  };
  if (warmupSeconds > 0) {
    const warm = await once(warmupSeconds);
    if (warm.reason || signal?.aborted) return warm;
  }
  await onMeasuring();
  return once(durationSeconds);
}
