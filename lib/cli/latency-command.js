import { formatFixed } from '../report/units.js';
import { startEchoTarget } from '../traffic/echo-target.js';
import { measureLatency } from '../traffic/latency.js';
import { endpointOption, serve } from './serve.js';
import { usageError } from './usage-error.js';

export function registerLatencyCommands(program) {
  program
    .command('echo')
    .description('a TCP echo target for the latency probe: writes back whatever arrives')
    .requiredOption('--listen <host:port>', 'address to accept connections on')
    .action(async (options) => {
      const listen = endpointOption('--listen', options.listen, { anyPort: true });
      await serve(() => startEchoTarget(listen));
    });

  program
    .command('latency')
    .description('request/response round trips and connection setup through HOST:PORT (a relay client in front of `cipherbench echo`, or the echo target itself)')
    .requiredOption('--connect <host:port>', 'where to connect: the relay client, or an echo target')
    .option('--round-trips <count>', 'sequential round trips on one connection', '2000')
    .option('--size <bytes>', 'bytes in each request', '1024')
    .option('--connections <count>', 'fresh connections, one after another, each timed to its first echoed byte', '200')
    .option('--timeout <seconds>', 'give up when the whole probe takes longer', '30')
    .option('--json', 'print JSON instead of the table')
    .action(async (options) => {
      const { host, port } = endpointOption('--connect', options.connect);
      const latency = await measureLatency({
        host,
        port,
        roundTrips: countOption('--round-trips', options.roundTrips, 1_000_000),
        size: countOption('--size', options.size, 1024 * 1024),
        connections: countOption('--connections', options.connections, 100_000),
        timeoutMs: countOption('--timeout', options.timeout, 3600) * 1000,
      });
      process.stdout.write(options.json ? `${JSON.stringify(latency, null, 2)}\n` : `${formatLatencyTable(latency)}\n`);
    });
}

function countOption(flag, text, largest) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !(value >= 1 && value <= largest)) {
    throw usageError(`${flag} must be a whole number from 1 to ${largest}, got ${JSON.stringify(text)}`);
  }
  return value;
}

const COLUMNS = ['count', 'mean', 'p50', 'p90', 'p99', 'p999', 'max'];

function formatLatencyTable(latency) {
  const rows = [
    ['latency (ms)', ...COLUMNS.map((name) => (name === 'p999' ? 'p99.9' : name))],
    ...Object.entries(latency).map(([kind, figures]) => [kind, String(figures.count), ...COLUMNS.slice(1).map((name) => formatFixed(figures[name], 3))]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column]))).join('  ')).join('\n');
}
