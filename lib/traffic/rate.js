import { inputError } from '../errors.js';

// A bit rate as iperf3 -b writes it: a number of bits per second with an
// optional k, M, G or T (powers of 1000, as iperf3 reads them), e.g. 1G,
// 250M, 1.5g. Returns bits per second, or throws an input error naming
// `flag`. Below 1K no relay's cost could be told from a clock tick.
const UNITS = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
const MAX_BPS = 1e13;

export function parseRate(flag, value) {
  const text = typeof value === 'number' ? String(value) : value;
  const match = typeof text === 'string' ? /^(\d+(?:\.\d+)?)([kmgt]?)$/i.exec(text.trim()) : null;
  const bps = match ? Math.round(Number(match[1]) * UNITS[match[2].toLowerCase()]) : NaN;
  if (!(bps >= 1000 && bps <= MAX_BPS)) {
    throw inputError(
      `${flag} must be a rate in bits per second such as 1G, 250M or 800k (1K to 10T), got ${JSON.stringify(value)}`,
    );
  }
  return bps;
}
