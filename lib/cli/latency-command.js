// @ts-check
import { latencyTable } from '../report/latency-table.js';
import { startEchoTarget } from '../traffic/echo-target.js';
import { startUdpEchoTarget } from '../traffic/udp-echo-target.js';
import { measureLatency } from '../traffic/latency.js';
import { endpointOption, registerServer } from './serve.js';
import { inputError } from '../errors.js';

// The probe's counts, each with the largest it takes.
const PROBE_COUNTS = [
  {
    name: 'roundTrips',
    flags: '--round-trips <count>',
    description: 'sequential round trips on one connection',
    fallback: '2000',
    largest: 1_000_000,
  },
  {
    name: 'size',
    flags: '--size <bytes>',
    description: 'bytes in each request',
    fallback: '1024',
    largest: 1024 * 1024,
  },
  {
    name: 'connections',
    flags: '--connections <count>',
    description: 'fresh connections, one after another, each timed to its first echoed byte',
    fallback: '200',
    largest: 100_000,
  },
  {
    name: 'timeout',
    flags: '--timeout <seconds>',
    description: 'give up when the whole probe takes longer',
    fallback: '30',
    largest: 3600,
  },
];

export function registerLatencyCommands(program) {
  registerServer(program, {
    name: 'echo',
    description: 'a TCP echo target for the latency probe: writes back whatever arrives',
    start: startEchoTarget,
  });
  registerServer(program, {
    name: 'udp-echo',
    description: 'a UDP echo target for the UDP round trips of run --udp --latency: sends every datagram back',
    start: startUdpEchoTarget,
  });

  const latency = program
    .command('latency')
    .description(
      'request/response round trips and connection setup through HOST:PORT (a relay client in front of `cipherbench echo`, or the echo target itself)',
    )
    .requiredOption('--connect <host:port>', 'where to connect: the relay client, or an echo target');
  for (const { flags, description, fallback } of PROBE_COUNTS) latency.option(flags, description, fallback);
  latency.option('--json', 'print JSON instead of the table').action(async (options) => {
    const { host, port } = endpointOption('--connect', options.connect);
    const counts = Object.fromEntries(
      PROBE_COUNTS.map(({ flags, name, largest }) => [name, countOption(flags.split(' ')[0], options[name], largest)]),
    );
    const figures = await measureLatency({
      host,
      port,
      roundTrips: counts.roundTrips,
      size: counts.size,
      connections: counts.connections,
      timeoutMs: counts.timeout * 1000,
    });
    process.stdout.write(
      options.json ? `${JSON.stringify(figures, null, 2)}\n` : `${latencyTable(figures).join('\n')}\n`,
    );
  });
}

function countOption(flag, text, largest) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !(value >= 1 && value <= largest)) {
    throw inputError(`${flag} must be a whole number from 1 to ${largest}, got ${JSON.stringify(text)}`);
  }
  return value;
}
