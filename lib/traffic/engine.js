import { findIperf3, IPERF3_SERVER_READY, iperf3ClientArgs, iperf3ServerArgs } from './iperf3.js';
import { CLI } from '../process/cli-path.js';
import { startCommand } from '../process/processes.js';
import { READY_LINE } from '../process/ready-line.js';

// What moves the bytes through a case: iperf3, or the built-in Node sender
// and sink (`cipherbench send` and `sink`, docs/traffic-engine.md), which
// report the same figures in the same JSON, so a machine with only Node
// can run the benchmark. Each engine says how to start its server on the
// target port and its client towards the entry port; run-case.js treats
// them alike.

const iperf3Engine = (path) => ({
  name: 'iperf3',
  path,
  server: (port, host = '127.0.0.1') => ({
    role: 'iperf3-server',
    label: 'iperf3 -s',
    file: path,
    args: iperf3ServerArgs(port, host),
    readiness: { stdout: IPERF3_SERVER_READY },
  }),
  client: (options) => ({ role: 'iperf3-client', label: 'iperf3 -c', file: path, args: iperf3ClientArgs(options) }),
  pacesReverse: true,
  // iperf3's own errors do not say who is speaking.
  errorPrefix: 'iperf3: ',
});

const nodeEngine = () => ({
  name: 'node',
  path: process.execPath,
  server: (port, host = '127.0.0.1') => ({
    role: 'traffic-sink',
    label: 'cipherbench sink',
    file: process.execPath,
    args: [CLI, 'sink', '--listen', `${host}:${port}`],
    readiness: { stdout: READY_LINE },
  }),
  // udp: { rate, length }: datagrams at `rate` bits/s of `length` bytes.
  client: ({ host = '127.0.0.1', port, duration, parallel, reverse, rate = null, udp = null }) => ({
    role: 'traffic-sender',
    label: 'cipherbench send',
    file: process.execPath,
    args: [
      CLI,
      'send',
      '--connect',
      `${host}:${port}`,
      '--duration',
      String(duration),
      ...(udp
        ? ['--udp', '--rate', String(udp.rate), '--length', String(udp.length)]
        : [
            '--parallel',
            String(parallel),
            ...(reverse ? ['--reverse'] : []),
            ...(rate === null ? [] : ['--rate', String(rate)]),
          ]),
      '--json',
    ],
  }),
  // The sink sends with --reverse, and it is not told a rate.
  pacesReverse: false,
  // The sender's errors start with 'traffic: ' already.
  errorPrefix: '',
});

// 'iperf3' insists on iperf3 (an input error when it is missing, saying
// how to install it); 'node' takes the built-in engine; 'auto' takes
// iperf3 when there is one, else the built-in engine. An iperf3Path given
// is always insisted on.
/** @param {{ engine?: string, iperf3Path?: string, env?: NodeJS.ProcessEnv }} [choice] */
export async function chooseEngine({ engine = 'auto', iperf3Path, env = process.env } = {}) {
  if (engine === 'node') return nodeEngine();
  if (engine === 'iperf3' || iperf3Path) return iperf3Engine(await findIperf3({ iperf3Path, env }));
  try {
    return iperf3Engine(await findIperf3({ env }));
  } catch (error) {
    if (error.exitCode === undefined) throw error;
    return nodeEngine();
  }
}

// Starts the engine's client where `place` puts it; `result` resolves with
// its result once it ends, killed when `signal` aborts or after `timeoutMs`;
// `command` is what was started, file first.
export function startTrafficClient(engine, options, { signal, timeoutMs, place = (spec) => spec }) {
  const { role, label, file, args } = place(engine.client(options));
  return { role, label, command: [file, ...args], ...startCommand(file, args, { timeoutMs, signal }) };
}
