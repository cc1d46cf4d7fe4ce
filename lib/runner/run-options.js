// @ts-check
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { inputError } from '../errors.js';
import { parseLinkProfile, PROFILES } from './link/profiles.js';
import { parseRate } from '../traffic/rate.js';
import { UDP_LENGTH } from '../traffic/udp-datagrams.js';
import { DISTURBED_OTHERS, DISTURBED_STEAL } from '../result.js';
import { DEFAULT_MAX_LOSS, DEFAULT_UDP_RATE } from '../workload/udp.js';
import { WORKLOADS } from '../workload/index.js';
import { RETRIES_PER_RUN } from './disturbed-runs.js';

const DEFAULT_PORTS = Object.freeze({ client: 1081, server: 1082, target: 1083 });
const DEFAULT_DURATION = 1;
const DEFAULT_PARALLEL = 1;
const DEFAULT_READY_TIMEOUT = 10;
// What moves the bytes (engine.js): iperf3, the built-in Node sender and
// sink, or auto, iperf3 when installed and else node. What loads the
// request workload (request-engine.js): wrk, the built-in client (node), or
// auto, wrk when it can and else node.
const ENGINES = Object.freeze(['auto', 'iperf3', 'node', 'wrk']);
// The request workload's clients: 20 as seed 002 ran them; more than a
// few thousand would measure this machine's file descriptor limit.
const DEFAULT_CONCURRENCY = 20;
const MAX_CONCURRENCY = 4096;
const DEFAULT_RESPONSE_SIZE = 2;
const MAX_RESPONSE_SIZE = 64 * 1024 * 1024;
// With --requests, seconds of load before the counted ones. After 1 s our
// relays were still compiling their hot code: aes-128-gcm new connections
// read 632 ms of CPU per 1,000 and 2,101 conn/s counted over the next
// second, 477 and 2,828 after 3 s (493 and 2,624 counted over 3 s after
// 1 s), while bare-node, with little JavaScript, read 233-243 either way
// (3 rounds each, 2026-11-28). A proxy in use has long been warm.
const DEFAULT_WARMUP = 3;
// iperf3 refuses more than 128 parallel streams.
const MAX_PARALLEL = 128;
// UDP mode (docs/udp.md): iperf3 -u at an offered rate (workload/udp.js),
// in datagrams of a fixed size every Shadowsocks implementation's buffer
// takes (iperf3 would size them from the control connection's MSS, some
// 64 KB on loopback).
const DEFAULT_UDP_LENGTH = 1200;
// Enough for any spread a person would wait for; a typo of 1000 would run
// for hours.
const MAX_REPEAT = 100;
// The stopping rule's limits unless a flag says otherwise: netperf's -i
// 30 for the rounds; no time limit but the rounds'.
const DEFAULT_MAX_ROUNDS = 30;
// The stopping rule looks at intervals only from this many rounds on:
// fewer say too little about the spread to judge it (netperf's -i min).
export const MIN_ROUNDS = 3;
// A seed is a 32-bit unsigned integer: what the order's generator takes.
const MAX_SEED = 2 ** 32 - 1;

// What each mode sets unless an option says otherwise. smoke: does every
// piece still work, in seconds (the first 3 cases, once each, never
// measured again); default: three interleaved rounds of 1 s, so that a
// burst of other work hits one round of a case rather than all of it, and
// each figure has an interval, in about the time one run of 3 s took
// (docs/statistics.md); full: figures to publish or gate on (longer runs
// until the intervals are narrow, plus latency). `cases` caps how many of
// the selected cases run.
const MODES = Object.freeze({
  smoke: Object.freeze({
    duration: 1,
    warmup: 1,
    repeat: 1,
    latency: false,
    cases: 3,
    confidence: null,
    maxTime: null,
    noiseFloor: 0,
    remeasure: 0,
  }),
  default: Object.freeze({
    duration: DEFAULT_DURATION,
    warmup: DEFAULT_WARMUP,
    repeat: 3,
    latency: false,
    cases: null,
    confidence: null,
    maxTime: null,
    noiseFloor: 3,
    remeasure: RETRIES_PER_RUN,
  }),
  full: Object.freeze({
    duration: 5,
    warmup: DEFAULT_WARMUP,
    repeat: 3,
    latency: true,
    cases: null,
    confidence: Object.freeze({ level: 0.95, width: 0.05 }),
    maxTime: 900,
    noiseFloor: 3,
    remeasure: RETRIES_PER_RUN,
  }),
});

const isPort = (value) => Number.isInteger(value) && value >= 1 && value <= 65535;

// Reads "1081,1082,1083" (client, server, target) or an object with those
// keys; returns { client, server, target } or throws an input error.
export function parsePorts(value) {
  if (value === undefined || value === null) return { ...DEFAULT_PORTS };
  let ports;
  if (typeof value === 'string') {
    const parts = value.split(',').map((part) => part.trim());
    if (parts.length !== 3 || !parts.every((part) => /^\d+$/.test(part))) {
      throw inputError(
        `--ports must be three port numbers CLIENT,SERVER,TARGET (e.g. 1081,1082,1083), got ${JSON.stringify(value)}`,
      );
    }
    const [client, server, target] = parts.map(Number);
    ports = { client, server, target };
  } else if (typeof value === 'object') {
    ports = { client: value.client, server: value.server, target: value.target };
  } else {
    throw inputError(
      `ports must be "CLIENT,SERVER,TARGET" or { client, server, target }, got ${JSON.stringify(value)}`,
    );
  }
  for (const [role, port] of Object.entries(ports)) {
    if (!isPort(port))
      throw inputError(`the ${role} port must be a whole number from 1 to 65535, got ${JSON.stringify(port)}`);
  }
  if (new Set(Object.values(ports)).size !== 3) {
    throw inputError(
      `the client, server and target ports must differ, got ${ports.client},${ports.server},${ports.target}`,
    );
  }
  return ports;
}

// iperf3 -t reads whole seconds; a fraction would be cut without a word.
function wholeNumber(name, value, { unit, min, max = Infinity }) {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (!Number.isInteger(number) || number < min || number > max) {
    const range = max === Infinity ? `${min} or more` : `${min} to ${max}`;
    throw inputError(`${name} must be a whole number of ${unit}, ${range}; got ${JSON.stringify(value)}`);
  }
  return number;
}

// An option of the request workload, given without --requests, would be
// ignored without a word: say so instead. Its setting is read either way,
// so the result records the defaults a requests run used.
function requestsOnly(name, value, options, read) {
  if (value !== undefined && value !== null && !asksForRequests(options)) {
    throw inputError(`${name.startsWith('--') ? name : `--${name}`} goes with --requests`);
  }
  return read();
}

// Whether the options ask for the request workload, before --requests is read.
const asksForRequests = (options) => flag('requests', options.requests ?? undefined, false);

function flag(name, value, fallback) {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw inputError(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

// Every option of a run, in one table: the API reads it (normalizeOptions),
// the CLI builds its flags from it (lib/cli/option-table.js), and the result
// records it (recordedOptions). A new option is one entry here and the code
// that uses its value. An entry has:
//   name      the run() option and the normalised setting
//   cli       the command line's flags: [{ flags, description, default }],
//             in --help order; none for an API-only option
//   fromCli   the run() option from commander's values, when it is not
//             simply values[name] (--smoke and --full make `mode`)
//   read      (value, { options, defaults }) -> the setting, or throws an
//             input error; defaults are the mode's; an entry without
//             read is an input another entry reads (remote's)
//   record    what the result keeps of the setting (options in
//             docs/result.md): false for none, a function for a part
//   notForRequests  the rest of the line refusing the option with
//             --requests, after its flag: why the request workload has no
//             use for it and what to do; `cipherbench requests --help`
//             leaves it out
const { smoke, default: standard, full } = MODES;

const OPTIONS = [
  {
    name: 'mode',
    // No defaults for what a mode sets, so an explicit flag can be told
    // apart from the mode's value.
    cli: [
      {
        flags: '--smoke',
        description: `a quick check that everything works: the first ${smoke.cases} cases, ${smoke.duration} s, once`,
      },
      {
        flags: '--full',
        description: `figures to publish or gate on: ${full.duration} s, at least ${full.repeat} rounds and more until --confidence ${full.confidence.level * 100},${full.confidence.width * 100} (at most ${full.maxTime} s), latency`,
      },
    ],
    fromCli: ({ smoke: quick, full: thorough }) => {
      if (quick && thorough) throw inputError('give --smoke or --full, not both');
      return quick ? 'smoke' : thorough ? 'full' : 'default';
    },
    read: readMode,
  },
  {
    name: 'duration',
    cli: [
      {
        flags: '--duration <seconds>',
        description: `seconds each run measures: iperf3 -t, or with --requests the counted seconds after --warmup (default: ${standard.duration}, ${smoke.duration} with --smoke, ${full.duration} with --full)`,
      },
    ],
    read: (value, { defaults }) => wholeNumber('duration', value ?? defaults.duration, { unit: 'seconds', min: 1 }),
  },
  {
    name: 'repeat',
    cli: [
      {
        flags: '--repeat <rounds>',
        description: `rounds: each runs every case once, in a random order; the report gives the median and its interval (default: ${standard.repeat}, ${full.repeat} with --full; with --confidence, the rounds before the rule is first applied)`,
      },
    ],
    read: (value, { defaults }) =>
      wholeNumber('repeat', value ?? defaults.repeat, { unit: 'rounds', min: 1, max: MAX_REPEAT }),
  },
  {
    name: 'seed',
    cli: [
      {
        flags: '--seed <number>',
        description:
          "the seed of the rounds' random order, to replay a run's order (default: a fresh one, recorded in the result)",
      },
    ],
    read: (value) =>
      value === undefined || value === null
        ? randomInt(MAX_SEED + 1)
        : wholeNumber('seed', value, { unit: 'a 32-bit seed', min: 0, max: MAX_SEED }),
  },
  {
    name: 'confidence',
    cli: [
      {
        flags: '--confidence <level,width>',
        description: `the stopping rule, as netperf -I: after ${MIN_ROUNDS} rounds, add rounds until every case's LEVEL% interval (and every ratio's, with --relative-to) is no wider than WIDTH% of its median in all, e.g. 95,5 (on with --full)`,
      },
    ],
    read: (value, { defaults }) =>
      value === undefined || value === null ? defaults.confidence : parseConfidence(value),
    record: (confidence) => confidence && { ...confidence },
  },
  {
    name: 'maxRounds',
    cli: [
      {
        flags: '--max-rounds <rounds>',
        description: `with --confidence: stop after this many rounds, converged or not (default: ${DEFAULT_MAX_ROUNDS})`,
      },
    ],
    read: (value, { options, defaults }) => {
      const rounds = wholeNumber('--max-rounds', value ?? DEFAULT_MAX_ROUNDS, {
        unit: 'rounds',
        min: 1,
        max: MAX_REPEAT,
      });
      const repeat = options.repeat ?? defaults.repeat;
      if (value !== undefined && value !== null && Number(rounds) < Number(repeat))
        throw inputError(`--max-rounds (${rounds}) must be at least --repeat (${repeat})`);
      return rounds;
    },
  },
  {
    name: 'maxTime',
    cli: [
      {
        flags: '--max-time <seconds>',
        description: `with --confidence: start no round that would end after this many seconds of the run (default: none, ${full.maxTime} with --full)`,
      },
    ],
    read: (value, { defaults }) => {
      if (value === undefined || value === null) return defaults.maxTime;
      const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof seconds !== 'number' || !(seconds > 0) || !Number.isFinite(seconds))
        throw inputError(`--max-time must be a number of seconds above 0, got ${JSON.stringify(value)}`);
      return seconds;
    },
  },
  {
    name: 'noiseFloor',
    cli: [
      {
        flags: '--noise-floor <runs>',
        description: `before the rounds, this many 1 s direct runs whose cv is the machine's own spread, printed under the ranking; with 2 or more cases (default: ${standard.noiseFloor}, ${smoke.noiseFloor} with --smoke)`,
      },
      { flags: '--no-noise-floor', description: 'no noise floor' },
    ],
    read: (value, { defaults }) =>
      value === false
        ? 0
        : wholeNumber('--noise-floor', value ?? defaults.noiseFloor, { unit: 'runs', min: 0, max: 10 }),
  },
  {
    name: 'remeasure',
    cli: [
      {
        flags: '--remeasure <times>',
        description: `measure a disturbed run again (other processes took over ${DISTURBED_OTHERS * 100}% of the CPU, or the hypervisor over ${DISTURBED_STEAL * 100}%) up to this many times, within a quarter of the run's planned runs; a run still disturbed is marked (default: ${standard.remeasure}, ${smoke.remeasure} with --smoke)`,
      },
      { flags: '--no-remeasure', description: 'mark disturbed runs, never measure them again' },
    ],
    read: (value, { defaults }) =>
      value === false ? 0 : wholeNumber('--remeasure', value ?? defaults.remeasure, { unit: 'times', min: 0, max: 10 }),
  },
  {
    name: 'parallel',
    notForRequests:
      "sets iperf3's parallel streams (-P), not the request workload's clients: drop it, or give --concurrency",
    cli: [
      {
        flags: '--parallel <streams>',
        description: `parallel iperf3 streams (iperf3 -P) (default: ${DEFAULT_PARALLEL})`,
      },
    ],
    read: (value) => wholeNumber('parallel', value ?? DEFAULT_PARALLEL, { unit: 'streams', min: 1, max: MAX_PARALLEL }),
  },
  {
    name: 'reverse',
    notForRequests:
      'turns a bulk stream around (iperf3 -R), and a request goes out and its response back already: drop it',
    cli: [
      {
        flags: '--reverse',
        description:
          'measure the other direction (iperf3 -R: iperf3 -s sends, through the server-to-client half of each preset)',
      },
    ],
    read: (value) => flag('reverse', value, false),
  },
  {
    name: 'both',
    notForRequests: 'measures a bulk stream both ways, and a request goes out and its response back already: drop it',
    cli: [{ flags: '--both', description: 'measure each case forward, then reverse' }],
    read: (value, { options }) => {
      const both = flag('both', value, false);
      if (both && flag('reverse', options.reverse, false))
        throw inputError(
          'give --reverse (the reverse direction only) or --both (each case both ways), not the two together',
        );
      return both;
    },
  },
  {
    name: 'concurrency',
    cli: [
      {
        flags: '--concurrency <clients>',
        description: `with --requests: clients at once, each one request at a time (default: ${DEFAULT_CONCURRENCY})`,
      },
    ],
    read: (value, { options }) =>
      requestsOnly('concurrency', value, options, () =>
        wholeNumber('concurrency', value ?? DEFAULT_CONCURRENCY, { unit: 'clients', min: 1, max: MAX_CONCURRENCY }),
      ),
  },
  {
    name: 'responseSize',
    cli: [
      {
        flags: '--response-size <bytes>',
        description: `with --requests: bytes in each response body (default: ${DEFAULT_RESPONSE_SIZE})`,
      },
    ],
    read: (value, { options }) =>
      requestsOnly('--response-size', value, options, () =>
        wholeNumber('response-size', value ?? DEFAULT_RESPONSE_SIZE, { unit: 'bytes', min: 0, max: MAX_RESPONSE_SIZE }),
      ),
  },
  {
    name: 'warmup',
    cli: [
      {
        flags: '--warmup <seconds>',
        description: `seconds of traffic through each case's relays before the --duration that counts, while relays on a JIT warm up (default: 0; with --requests ${standard.warmup}, ${smoke.warmup} with --smoke)`,
      },
    ],
    // A transfer has none unless asked, as iperf3 omits nothing unless
    // asked: a bulk run's default is three rounds of 1 s, and a warm-up
    // would triple it. Its first seconds' cost is in docs/statistics.md.
    read: (value, { options, defaults }) =>
      wholeNumber('warmup', value ?? (asksForRequests(options) ? defaults.warmup : 0), {
        unit: 'seconds',
        min: 0,
        max: 60,
      }),
  },
  {
    name: 'newConnections',
    cli: [
      {
        flags: '--new-connections',
        description: 'with --requests: a new connection (and handshake) for every request, to measure connection setup',
      },
    ],
    read: (value, { options }) =>
      requestsOnly('--new-connections', value, options, () => flag('newConnections', value, false)),
  },
  {
    name: 'latency',
    notForRequests:
      'times round trips beside a bulk stream, and the request workload times every request already: drop it',
    cli: [
      {
        flags: '--latency',
        description: 'also time 1 KB round trips and new connections through the relays (on with --full)',
      },
      { flags: '--no-latency', description: 'no latency, even with --full' },
    ],
    read: (value, { defaults }) => flag('latency', value, defaults.latency),
  },
  {
    name: 'rate',
    notForRequests:
      "paces iperf3 (-b), and the request workload's clients send as fast as they are answered: drop it, or give --concurrency",
    cli: [
      {
        flags: '--rate <bits/s>',
        description: `offer every run this many bits per second (iperf3 -b; the built-in engine paces too), e.g. 500M or 1G: over TCP each relay's CPU seconds per GB becomes the figure, ranked lowest first; with --udp one run a case at this rate, a row losing more than --max-loss not ranked (default with --udp: a search from ${DEFAULT_UDP_RATE} down)`,
      },
    ],
    read: (value, { options }) => {
      if (value === undefined || value === null)
        return flag('udp', options.udp, false) ? parseRate('--rate', DEFAULT_UDP_RATE) : null;
      return parseRate('--rate', value);
    },
  },
  {
    name: 'length',
    notForRequests: 'sizes UDP datagrams (iperf3 -l), not requests: drop it',
    cli: [
      {
        flags: '--length <bytes>',
        description: `with --udp: bytes of payload per datagram (iperf3 -l) (default: ${DEFAULT_UDP_LENGTH})`,
      },
    ],
    read: (value, { options }) => {
      if (value === undefined || value === null) return flag('udp', options.udp, false) ? DEFAULT_UDP_LENGTH : null;
      if (!flag('udp', options.udp, false)) throw inputError('--length goes with --udp (bytes per datagram)');
      return wholeNumber('length', value, { unit: 'bytes', ...UDP_LENGTH });
    },
  },
  {
    name: 'maxLoss',
    notForRequests: "bounds a UDP rate's loss, not a request rate's: drop it",
    cli: [
      {
        flags: '--max-loss <percent>',
        description: `with --udp: the loss a ranked row may have; with --rate too, find each case's highest offered rate up to --rate whose loss is at most this, by bisection (as --udp alone does up to ${DEFAULT_UDP_RATE}) (default: ${DEFAULT_MAX_LOSS})`,
      },
    ],
    read: (value, { options }) => {
      const udp = flag('udp', options.udp, false);
      if (value === undefined || value === null) return udp ? DEFAULT_MAX_LOSS : null;
      if (!udp) throw inputError('--max-loss goes with --udp (the loss a rate may cost)');
      const percent = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof percent !== 'number' || !(percent >= 0 && percent <= 100))
        throw inputError(`--max-loss must be a percentage from 0 to 100, got ${JSON.stringify(value)}`);
      return percent;
    },
  },
  {
    // API-only: the CLI says it by giving --rate without --max-loss
    // (one run at that rate) or not. Recorded, so compare and history
    // tell a searched rate from an offered one.
    name: 'rateSearch',
    notForRequests: 'searches a UDP rate, not a request rate: drop it',
    read: (value, { options }) => {
      const udp = flag('udp', options.udp, false);
      const given = (name) => options[name] !== undefined && options[name] !== null;
      if (value === undefined || value === null) return udp && (!given('rate') || given('maxLoss'));
      const search = flag('rateSearch', value, false);
      if (search && !udp) throw inputError('rateSearch goes with --udp (it searches the offered UDP rate)');
      return search;
    },
  },
  {
    name: 'ceiling',
    cli: [
      {
        flags: '--no-ceiling',
        description:
          "do not measure each chain's cipher ceiling (in-process encrypt and decrypt) before the runs (never with --udp: a TCP stream's ceiling is not a UDP figure)",
      },
    ],
    // A cipher's speed over one long stream bounds a TCP relay, not one
    // that seals every datagram apart (docs/udp.md).
    read: (value, { options }) => flag('ceiling', value, true) && !flag('udp', options.udp, false),
  },
  {
    name: 'filter',
    cli: [
      {
        flags: '--filter <text>',
        description: 'run only case number TEXT, or the cases whose JSON or label contains TEXT',
      },
    ],
    read: caseText('filter', 'some text from a case'),
  },
  {
    name: 'relativeTo',
    cli: [
      {
        flags: '--relative-to <text>',
        description:
          'also give every case\'s receiver bitrate as a multiple of one case\'s: its number as the report prints it (TEXT 2 or "Case 2", counted from 0), or the one case whose JSON or label contains TEXT',
      },
    ],
    read: caseText('relativeTo', 'some text from one case'),
  },
  {
    name: 'engine',
    cli: [
      {
        flags: '--engine <name>',
        description:
          "what loads each case: for a bulk stream iperf3 or node (auto: iperf3 when installed, else the built-in Node sender and sink); with --requests wrk or node (auto: wrk when installed and every case's inbound is one it speaks, else the built-in Node client)",
        default: 'auto',
      },
    ],
    read: (value = 'auto', { options }) => {
      if (!ENGINES.includes(value))
        throw inputError(`engine must be one of ${ENGINES.join(', ')}, got ${JSON.stringify(value)}`);
      if (value === 'wrk' && !asksForRequests(options)) {
        throw inputError(
          '--engine wrk loads the request workload: add --requests, or measure a bulk stream with --engine iperf3 or node',
        );
      }
      return value;
    },
  },
  {
    name: 'link',
    cli: [
      {
        flags: '--link <profile>',
        description: `run the relay server's half across a shaped link in network namespaces (root): ${Object.keys(PROFILES).join(', ')}, or e.g. rate=100mbit,delay=40ms,loss=0.1% (docs/links.md)`,
      },
    ],
    read: (value) => (value === undefined || value === null ? null : parseLinkProfile(value)),
  },
  {
    name: 'remote',
    cli: [
      {
        flags: '--remote <destination>',
        description:
          "run the server's half (iperf3 -s, the relay server) on another host over ssh (user@host, with your ssh config and keys); it needs Node.js and this cipherbench version there (docs/links.md)",
      },
    ],
    read: (value, { options }) => remoteOptions({ ...options, remote: value ?? null }),
    record: (remote) => remote && { destination: remote.destination },
  },
  {
    name: 'remoteCipherbench',
    cli: [
      {
        flags: '--remote-cipherbench <command>',
        description: 'with --remote: how to run cipherbench on that host',
        default: 'cipherbench',
      },
    ],
  },
  {
    name: 'sshConfig',
    cli: [{ flags: '--ssh-config <file>', description: 'with --remote: an ssh configuration file (ssh -F)' }],
  },
  {
    name: 'ports',
    cli: [
      {
        flags: '--ports <client,server,target>',
        description: 'ports of the relay client, relay server and iperf3 -s',
        default: Object.values(DEFAULT_PORTS).join(','),
      },
    ],
    read: parsePorts,
  },
  {
    name: 'profile',
    cli: [
      {
        flags: '--profile',
        description:
          "also find where the relays spend their CPU: ours under V8's profiler (.cpuprofile files under --out's profiles/) and their system calls per GB (strace), a reference row's with perf; the busiest functions in the report (docs/profiles.md)",
      },
    ],
    // Beside the archive: the CLI's --out, profiles/ in it.
    fromCli: ({ profile, out }) => (profile ? path.join(out ?? './reports', 'profiles') : null),
    read: (value = null) => {
      if (value !== null && (typeof value !== 'string' || value === ''))
        throw inputError(`profile must be the folder to write the CPU profiles to, got ${JSON.stringify(value)}`);
      return value === null ? null : path.resolve(value);
    },
  },
  {
    name: 'readyTimeout',
    read: (value = DEFAULT_READY_TIMEOUT) => {
      if (typeof value !== 'number' || !(value > 0))
        throw inputError(`readyTimeout must be a positive number of seconds, got ${JSON.stringify(value)}`);
      return value;
    },
    record: false,
  },
];

export const RUN_OPTIONS = Object.freeze(withWorkloadOptions(OPTIONS));

// The table with each workload's option (workload/index.js) after the entry
// it names: a flag, true to ask for that workload, whatever else its
// workload refuses beside it. A workload's option is recorded only when the
// workload says so: the result's `workload` says which ran.
function withWorkloadOptions(entries) {
  const table = [...entries];
  for (const { option } of WORKLOADS) {
    if (!option) continue;
    const { name, after, cli, recorded = false, notForRequests, refuses } = option;
    const entry = {
      name,
      cli,
      ...(notForRequests ? { notForRequests } : {}),
      read: (value, { options }) => {
        const asked = flag(name, value, false);
        const refusal = asked ? refuses?.(options) : undefined;
        if (refusal) throw inputError(refusal);
        return asked;
      },
      ...(recorded ? {} : { record: false }),
    };
    const at = table.findIndex((other) => other.name === after);
    table.splice(at < 0 ? table.length : at + 1, 0, entry);
  }
  return table;
}

// '95,5' -> { level: 0.95, width: 0.05 }: the interval's level and the
// widest it may be, low to high, as a share of the median, both given in
// percent. A level under 50 % is no confidence at all; 100 % needs
// infinitely many rounds.
function parseConfidence(value) {
  const text = String(value);
  const match = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const [level, width] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(level >= 50 && level <= 99.9) || !(width > 0)) {
    throw inputError(
      `--confidence takes LEVEL,WIDTH in percent: a level from 50 to 99.9 and a width above 0, e.g. 95,5; got ${JSON.stringify(text)}`,
    );
  }
  return { level: level / 100, width: width / 100 };
}

// --filter's and --relative-to's text: a case's number or some text from
// its JSON or label, which runner/cases-file.js matches.
function caseText(name, what) {
  return (value = null) => {
    if (value !== null && (typeof value !== 'string' || value === ''))
      throw inputError(`${name} must be a case index or ${what}, got ${JSON.stringify(value)}`);
    return value;
  };
}

function readMode(mode = 'default') {
  if (!Object.hasOwn(MODES, mode))
    throw inputError(`mode must be one of ${Object.keys(MODES).join(', ')}, got ${JSON.stringify(mode)}`);
  return mode;
}

// The options run() and the CLI share, checked once, with their defaults:
// the mode's, then the built-in ones.
/** @returns {import('../contracts.js').RunSettings} */
export function normalizeOptions(options = {}) {
  const defaults = MODES[readMode(options.mode ?? undefined)];
  const reading = { options, defaults };
  if (asksForRequests(options)) refuseBulkOptions(options);
  const settings = RUN_OPTIONS.filter((option) => option.read).map((option) => [
    option.name,
    option.read(options[option.name] ?? undefined, reading),
  ]);
  return { ...Object.fromEntries(settings), caseLimit: defaults.cases };
}

// An option of a bulk stream or of UDP, given with --requests, would be
// dropped without a word (or, for --udp, break the run): refuse it, saying
// why, before anything starts. false asks for what a request run does
// anyway (no latency probe, no reverse), and passes.
function refuseBulkOptions(options) {
  for (const { name, cli, notForRequests } of RUN_OPTIONS) {
    const value = options[name];
    if (!notForRequests || value === undefined || value === null || value === false) continue;
    const flagName = cli ? cli[0].flags.split(' ')[0] : name;
    throw inputError(`${flagName} ${notForRequests}`);
  }
}

// What a result keeps of the settings (its options in docs/result.md).
export function recordedOptions(settings) {
  const recorded = RUN_OPTIONS.filter((option) => option.read && option.record !== false).map(({ name, record }) => [
    name,
    typeof record === 'function' ? record(settings[name]) : settings[name],
  ]);
  return Object.fromEntries(recorded);
}

// --remote DESTINATION, with how to run cipherbench there and an ssh
// configuration file; null without --remote.
function remoteOptions({ remote = null, remoteCipherbench = 'cipherbench', sshConfig = null, link = null }) {
  if (remote === null) {
    if (sshConfig !== null) throw inputError('--ssh-config goes with --remote');
    return null;
  }
  if (link !== null)
    throw inputError('give --link (a shaped link on this machine) or --remote (another host), not both');
  if (typeof remote !== 'string' || remote === '' || remote.startsWith('-')) {
    throw inputError(`--remote takes an ssh destination such as user@host, got ${JSON.stringify(remote)}`);
  }
  if (typeof remoteCipherbench !== 'string' || remoteCipherbench.trim() === '')
    throw inputError('--remote-cipherbench must name how to run cipherbench on the remote host');
  if (sshConfig !== null && typeof sshConfig !== 'string') throw inputError('--ssh-config takes a file');
  return { destination: remote, command: remoteCipherbench, sshConfig };
}
