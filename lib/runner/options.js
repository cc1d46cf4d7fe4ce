import { inputError } from '../errors.js';
import { parseLinkProfile } from './link/profiles.js';

export const DEFAULT_PORTS = Object.freeze({ client: 1081, server: 1082, target: 1083 });
export const DEFAULT_DURATION = 3;
export const DEFAULT_PARALLEL = 1;
export const DEFAULT_READY_TIMEOUT = 10;
// What moves the bytes (engine.js): iperf3, the built-in Node sender and
// sink, or auto, iperf3 when installed and else node.
export const ENGINES = Object.freeze(['auto', 'iperf3', 'node']);
// iperf3 refuses more than 128 parallel streams.
const MAX_PARALLEL = 128;
// Enough for any spread a person would wait for; a typo of 1000 would run
// for hours.
const MAX_REPEAT = 100;

// What each mode sets unless an option says otherwise. smoke: does every
// piece still work, in seconds (the first 3 cases, once each); full: figures
// to publish or gate on (3 repeats give the comparison its spread, plus
// latency). `cases` caps how many of the selected cases run.
export const MODES = Object.freeze({
  smoke: Object.freeze({ duration: 1, repeat: 1, latency: false, cases: 3 }),
  default: Object.freeze({ duration: DEFAULT_DURATION, repeat: 1, latency: false, cases: null }),
  full: Object.freeze({ duration: 5, repeat: 3, latency: true, cases: null }),
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
      throw inputError(`--ports must be three port numbers CLIENT,SERVER,TARGET (e.g. 1081,1082,1083), got ${JSON.stringify(value)}`);
    }
    const [client, server, target] = parts.map(Number);
    ports = { client, server, target };
  } else if (typeof value === 'object') {
    ports = { client: value.client, server: value.server, target: value.target };
  } else {
    throw inputError(`ports must be "CLIENT,SERVER,TARGET" or { client, server, target }, got ${JSON.stringify(value)}`);
  }
  for (const [role, port] of Object.entries(ports)) {
    if (!isPort(port)) throw inputError(`the ${role} port must be a whole number from 1 to 65535, got ${JSON.stringify(port)}`);
  }
  if (new Set(Object.values(ports)).size !== 3) {
    throw inputError(`the client, server and target ports must differ, got ${ports.client},${ports.server},${ports.target}`);
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

function flag(name, value, fallback) {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw inputError(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

// The options run() and the CLI share, checked once, with their defaults:
// the mode's, then the built-in ones.
export function normalizeOptions(options = {}) {
  const mode = options.mode ?? 'default';
  if (!Object.hasOwn(MODES, mode)) {
    throw inputError(`mode must be one of ${Object.keys(MODES).join(', ')}, got ${JSON.stringify(mode)}`);
  }
  const preset = MODES[mode];
  const reverse = flag('reverse', options.reverse, false);
  const both = flag('both', options.both, false);
  if (reverse && both) throw inputError('give --reverse (the reverse direction only) or --both (each case both ways), not the two together');
  const filter = options.filter ?? null;
  if (filter !== null && (typeof filter !== 'string' || filter === '')) {
    throw inputError(`filter must be a case index or some text from a case, got ${JSON.stringify(filter)}`);
  }
  const relativeTo = options.relativeTo ?? null;
  if (relativeTo !== null && (typeof relativeTo !== 'string' || relativeTo === '')) {
    throw inputError(`relativeTo must be a case index or some text from one case, got ${JSON.stringify(relativeTo)}`);
  }
  const engine = options.engine ?? 'auto';
  if (!ENGINES.includes(engine)) throw inputError(`engine must be one of ${ENGINES.join(', ')}, got ${JSON.stringify(engine)}`);
  const readyTimeout = options.readyTimeout ?? DEFAULT_READY_TIMEOUT;
  if (typeof readyTimeout !== 'number' || !(readyTimeout > 0)) {
    throw inputError(`readyTimeout must be a positive number of seconds, got ${JSON.stringify(readyTimeout)}`);
  }
  return {
    mode,
    duration: wholeNumber('duration', options.duration ?? preset.duration, { unit: 'seconds', min: 1 }),
    parallel: wholeNumber('parallel', options.parallel ?? DEFAULT_PARALLEL, { unit: 'streams', min: 1, max: MAX_PARALLEL }),
    repeat: wholeNumber('repeat', options.repeat ?? preset.repeat, { unit: 'runs', min: 1, max: MAX_REPEAT }),
    filter,
    relativeTo,
    engine,
    ports: parsePorts(options.ports),
    readyTimeout,
    latency: flag('latency', options.latency, preset.latency),
    reverse,
    both,
    ceiling: flag('ceiling', options.ceiling, true),
    link: options.link === undefined || options.link === null ? null : parseLinkProfile(options.link),
    remote: remoteOptions(options),
    caseLimit: preset.cases,
  };
}

// --remote DESTINATION, with how to run cipherbench there and an ssh
// configuration file; null without --remote.
function remoteOptions({ remote = null, remoteCipherbench = 'cipherbench', sshConfig = null, link = null }) {
  if (remote === null) {
    if (sshConfig !== null) throw inputError('--ssh-config goes with --remote');
    return null;
  }
  if (link !== null) throw inputError('give --link (a shaped link on this machine) or --remote (another host), not both');
  if (typeof remote !== 'string' || remote === '' || remote.startsWith('-')) {
    throw inputError(`--remote takes an ssh destination such as user@host, got ${JSON.stringify(remote)}`);
  }
  if (typeof remoteCipherbench !== 'string' || remoteCipherbench.trim() === '') throw inputError('--remote-cipherbench must name how to run cipherbench on the remote host');
  if (sshConfig !== null && typeof sshConfig !== 'string') throw inputError('--ssh-config takes a file');
  return { destination: remote, command: remoteCipherbench, sshConfig };
}
