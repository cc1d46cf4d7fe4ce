// @ts-check
import { formatBitrate, formatBytes, formatInterval } from '../report/units.js';
import { MAX_DURATION_SECONDS, MAX_STREAMS } from '../traffic/protocol.js';
import { runTrafficSender } from '../traffic/sender.js';
import { UDP_HEADER_LENGTH } from '../traffic/udp-datagrams.js';
import { runUdpSender } from '../traffic/udp-sender.js';
import { parseRate } from '../traffic/rate.js';
import { startTrafficSink } from '../traffic/sink.js';
import { endpointOption, registerServer } from './serve.js';
import { inputError } from '../errors.js';

// The built-in traffic engine (docs/traffic-engine.md): `sink` stands where
// iperf3 -s would, `send` where iperf3 -c would, and `send --json` prints
// the part of iperf3 -J's report the runner reads, or { "error" } and exit 1.
export function registerTrafficCommands(program) {
  registerServer(program, {
    name: 'sink',
    description:
      'the far end of the built-in traffic engine, in place of iperf3 -s: counts what `cipherbench send` delivers, or sends with --reverse',
    start: (listen) => startTrafficSink({ ...listen, onTestEnd: printTestEnd }),
  });

  program
    .command('send')
    .description(
      "the built-in traffic engine's client, in place of iperf3 -c: sends to `cipherbench sink` (through the relays) and reports sender and receiver figures",
    )
    .requiredOption('--connect <host:port>', 'where to connect: the relay client, or the sink itself')
    .option('--duration <seconds>', 'how long to send, as iperf3 -t', '10')
    .option('--parallel <streams>', 'parallel streams, as iperf3 -P', '1')
    .option('--reverse', 'the sink sends and this side receives, as iperf3 -R')
    .option(
      '--rate <rate>',
      'pace the sending to this many bits per second in all, as iperf3 -b (500M, 1G); not with --reverse',
    )
    .option('--udp', 'send datagrams at --rate instead, as iperf3 -u: loss, jitter and out-of-order from the sink')
    .option(
      '--length <bytes>',
      `with --udp: bytes per datagram, as iperf3 -l (${UDP_HEADER_LENGTH} to ${MAX_DATAGRAM}; default: ${DEFAULT_LENGTH})`,
    )
    .option('--json', "print a JSON report shaped like iperf3 -J's")
    .action(async (options) => {
      const { host, port } = endpointOption('--connect', options.connect);
      const duration = Number(options.duration);
      if (!(duration > 0 && duration <= MAX_DURATION_SECONDS)) {
        throw inputError(
          `--duration must be a number of seconds above 0 and at most ${MAX_DURATION_SECONDS}, got ${JSON.stringify(options.duration)}`,
        );
      }
      const parallel = Number(options.parallel);
      if (!/^\d+$/.test(options.parallel) || !(parallel >= 1 && parallel <= MAX_STREAMS)) {
        throw inputError(
          `--parallel must be a whole number from 1 to ${MAX_STREAMS}, got ${JSON.stringify(options.parallel)}`,
        );
      }
      const rate = options.rate === undefined ? null : parseRate('--rate', options.rate);
      if (rate !== null && options.reverse)
        throw inputError('--rate paces what this side sends: give it without --reverse');
      if (options.length !== undefined && !options.udp)
        throw inputError('--length goes with --udp (bytes per datagram)');
      const udp = options.udp ? udpOptions(options, rate) : null;
      let report;
      try {
        report = udp
          ? await runUdpSender({ host, port, duration, ...udp })
          : await runTrafficSender({ host, port, duration, parallel, reverse: Boolean(options.reverse), rate });
      } catch (error) {
        // As iperf3 -J: the failure goes in the JSON, so a reader of stdout
        // always gets one JSON object.
        if (!options.json || error.exitCode === undefined) throw error;
        process.stdout.write(`${JSON.stringify({ error: error.message }, null, 2)}\n`);
        process.exitCode = error.exitCode;
        return;
      }
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    });
}

const MAX_DATAGRAM = 65_507;
const DEFAULT_LENGTH = '1200';

// --udp: one stream, forward, at a rate given.
function udpOptions(options, rate) {
  if (options.reverse || options.parallel !== '1')
    throw inputError('--udp sends one stream of datagrams forward: give it without --reverse and --parallel');
  if (rate === null) throw inputError('--udp needs --rate, the bits per second to offer (20M, 1G)');
  const given = options.length ?? DEFAULT_LENGTH;
  const length = Number(given);
  if (!/^\d+$/.test(given) || !(length >= UDP_HEADER_LENGTH && length <= MAX_DATAGRAM)) {
    throw inputError(
      `--length must be a whole number of bytes from ${UDP_HEADER_LENGTH} to ${MAX_DATAGRAM}, got ${JSON.stringify(given)}`,
    );
  }
  return { rate, length };
}

function printTestEnd({ cookie, reverse, streams }) {
  const bytes = streams.reduce((total, stream) => total + stream.bytes, 0);
  const count = `${streams.length} stream${streams.length === 1 ? '' : 's'}`;
  process.stdout.write(
    `test ${cookie}: ${reverse ? 'reverse' : 'forward'}, ${count}, ${reverse ? 'sent' : 'received'} ${bytes} bytes\n`,
  );
}

// iperf3's closing rows: each stream when there are several, then the sums.
function formatReport({ end }) {
  const row = (label, { seconds, bytes, bits_per_second: bitsPerSecond }, role) =>
    `${label.padEnd(6)}${formatInterval(0, seconds)}  ${formatBytes(bytes).padStart(12)}  ${formatBitrate(bitsPerSecond).padStart(15)}  ${role}`;
  const rows = ['stream Interval           Transfer          Bitrate'];
  if (end.streams.length > 1) {
    end.streams.forEach((stream, index) => {
      rows.push(row(String(index), stream.sender, 'sender'), row(String(index), stream.receiver, 'receiver'));
    });
  }
  rows.push(row('sum', end.sum_sent, 'sender'), row('sum', end.sum_received, 'receiver'));
  const { sum_received: received } = end;
  if (received.lost_packets !== undefined) {
    rows.push(
      `udp   ${received.lost_packets} of ${received.packets} datagrams lost (${received.lost_percent.toFixed(2)}%), jitter ${received.jitter_ms.toFixed(3)} ms, ${end.streams[0].udp.out_of_order} out of order`,
    );
  }
  return `${rows.join('\n')}\n`;
}
