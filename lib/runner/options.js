import { inputError } from './input-error.js';

export const DEFAULT_PORTS = Object.freeze({ client: 1081, server: 1082, target: 1083 });
export const DEFAULT_DURATION = 3;
export const DEFAULT_PARALLEL = 1;
export const DEFAULT_READY_TIMEOUT = 10;
// iperf3 refuses more than 128 parallel streams.
const MAX_PARALLEL = 128;

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

// The options run() and the CLI share, checked once, with their defaults.
export function normalizeOptions(options = {}) {
  const filter = options.filter ?? null;
  if (filter !== null && (typeof filter !== 'string' || filter === '')) {
    throw inputError(`filter must be a case index or some text from a case, got ${JSON.stringify(filter)}`);
  }
  const readyTimeout = options.readyTimeout ?? DEFAULT_READY_TIMEOUT;
  if (typeof readyTimeout !== 'number' || !(readyTimeout > 0)) {
    throw inputError(`readyTimeout must be a positive number of seconds, got ${JSON.stringify(readyTimeout)}`);
  }
  return {
    duration: wholeNumber('duration', options.duration ?? DEFAULT_DURATION, { unit: 'seconds', min: 1 }),
    parallel: wholeNumber('parallel', options.parallel ?? DEFAULT_PARALLEL, { unit: 'streams', min: 1, max: MAX_PARALLEL }),
    filter,
    ports: parsePorts(options.ports),
    readyTimeout,
  };
}
