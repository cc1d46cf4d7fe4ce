// @ts-check
import { inputError } from '../../errors.js';

// A link between the relay client's host and the relay server's: a rate
// cap, a delay added to the round trip (half each way), jitter and loss
// (each way). Named profiles are the links people pick a chain for;
// anything else is written out: 'delay=40ms,loss=0.5%,rate=100mbit'.
export const PROFILES = Object.freeze({
  lan: Object.freeze({ rate: '1gbit', delay: '0.2ms' }),
  wan: Object.freeze({ rate: '100mbit', delay: '40ms', loss: '0.1%' }),
  mobile: Object.freeze({ rate: '20mbit', delay: '80ms', jitter: '10ms', loss: '1%' }),
  satellite: Object.freeze({ rate: '50mbit', delay: '600ms' }),
});

const FREE_FORM = 'delay=40ms,jitter=5ms,loss=0.5%,rate=100mbit';
const RATE_UNITS = { bit: 1, kbit: 1e3, mbit: 1e6, gbit: 1e9 };
const TIME_UNITS = { us: 1e-3, ms: 1, s: 1000 };

// Reads --link: a profile's name or the free form. Returns
// { name, rateBps, delayMs, jitterMs, lossPercent } (null where the
// link does not shape that), the shape every report prints.
export function parseLinkProfile(text) {
  if (typeof text !== 'string' || text.trim() === '')
    throw inputError(`--link takes a profile (${Object.keys(PROFILES).join(', ')}) or ${FREE_FORM}`);
  const named = Object.hasOwn(PROFILES, text) ? PROFILES[text] : null;
  const fields = named ?? freeFormFields(text);
  const profile = {
    name: text,
    rateBps: fields.rate === undefined ? null : rate(fields.rate),
    delayMs: fields.delay === undefined ? null : time('delay', fields.delay),
    jitterMs: fields.jitter === undefined ? null : time('jitter', fields.jitter),
    lossPercent: fields.loss === undefined ? null : loss(fields.loss),
  };
  if (profile.jitterMs !== null && profile.delayMs === null)
    throw inputError('--link: jitter varies a delay: give delay= too');
  return profile;
}

function freeFormFields(text) {
  const fields = {};
  for (const part of text.split(',')) {
    const match = /^\s*(\w+)\s*=\s*(\S+)\s*$/.exec(part);
    if (!match)
      throw inputError(
        `--link: ${JSON.stringify(text)} is neither a profile (${Object.keys(PROFILES).join(', ')}) nor KEY=VALUE pairs like ${FREE_FORM}`,
      );
    const [, key, value] = match;
    if (!['rate', 'delay', 'jitter', 'loss'].includes(key))
      throw inputError(`--link: unknown setting ${JSON.stringify(key)}; valid: rate, delay, jitter, loss`);
    if (Object.hasOwn(fields, key)) throw inputError(`--link: ${key} given twice`);
    fields[key] = value;
  }
  return fields;
}

// tc reads 'mbps' as megabytes a second; bits only, so a link is never
// eight times what was meant.
function rate(text) {
  const match = /^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)$/i.exec(text);
  if (!match)
    throw inputError(
      `--link: rate ${JSON.stringify(text)} must be a number of bit, kbit, mbit or gbit per second, e.g. 100mbit`,
    );
  const bps = Number(match[1]) * RATE_UNITS[match[2].toLowerCase()];
  if (!(bps >= 8000 && bps <= 100e9)) throw inputError(`--link: rate ${text} is outside 8kbit to 100gbit`);
  return bps;
}

function time(name, text) {
  const match = /^(\d+(?:\.\d+)?)(us|ms|s)$/.exec(text);
  if (!match) throw inputError(`--link: ${name} ${JSON.stringify(text)} must be a time in us, ms or s, e.g. 40ms`);
  const ms = Number(match[1]) * TIME_UNITS[match[2]];
  if (!(ms <= 60_000)) throw inputError(`--link: ${name} ${text} is over a minute`);
  return ms;
}

function loss(text) {
  const match = /^(\d+(?:\.\d+)?)%$/.exec(text);
  const percent = match ? Number(match[1]) : NaN;
  if (!(percent >= 0 && percent < 100))
    throw inputError(`--link: loss ${JSON.stringify(text)} must be a percentage under 100%, e.g. 0.5%`);
  return percent;
}

// What needs netem (delay, jitter, loss) rather than a rate limiter alone.
export const needsNetem = (profile) => profile.delayMs !== null || profile.lossPercent !== null;
