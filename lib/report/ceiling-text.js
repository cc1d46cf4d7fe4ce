// @ts-check
import { formatBitrate, formatBitrateIn, formatFixed } from './units.js';

// A case's cipher ceiling as every report prints it: each direction's
// median with its rounds' min..max, and whether the ceiling is steady
// enough for the efficiency computed from it. Measured in rounds
// (lib/ceiling/chain-ceilings.js), a ceiling whose rounds spread in its
// bounding (slower) direction by more than UNSTEADY_CEILING of their
// median is unsteady: something else took the core during some of them,
// and the efficiency set against it may be off by as much. Rounds of a
// fifteenth of a CPU second spread by 7 to 91 % (a fifth of the median)
// on a quiet machine (docs/measurements.md): half the median marks the
// rounds that disagree as one run's aes-128-ctr ceiling did with the
// next's (9.56 and 20.3 Gbit/s), not the ordinary jitter of short windows.
const UNSTEADY_CEILING = 0.5;

// 'encrypt 31.5 Gbits/sec (28.0..33.1)'; without rounds (a result from
// before them), the median alone.
export function ceilingDirectionText(ceiling, direction) {
  const median = ceiling[`${direction}Bps`];
  const min = ceiling[`${direction}MinBps`];
  const figure = `${direction} ${formatBitrate(median)}`;
  if (min === undefined) return figure;
  return `${figure} (${formatBitrateIn(min, median)}..${formatBitrateIn(ceiling[`${direction}MaxBps`], median)})`;
}

export function isUnsteadyCeiling(ceiling) {
  const spread = boundingSpread(ceiling);
  return spread !== null && spread > UNSTEADY_CEILING;
}

// 'unsteady: its 3 rounds of encrypt spread 9.56..20.3 Gbits/sec, more
// than 50% of their median, ...'; '' for a steady ceiling.
export function unsteadyCeilingText(ceiling) {
  if (!isUnsteadyCeiling(ceiling)) return '';
  const direction = boundingDirection(ceiling);
  const median = ceiling[`${direction}Bps`];
  const range = `${formatBitrateIn(ceiling[`${direction}MinBps`], median)}..${formatBitrate(ceiling[`${direction}MaxBps`])}`;
  return `unsteady: its ${ceiling.rounds} rounds of ${direction} spread ${range}, more than ${formatFixed(UNSTEADY_CEILING * 100, 0)}% of their median, so the efficiency may be off by as much`;
}

// The mark the efficiency figure carries: 'unsteady ceiling', or null.
export function efficiencyMark(ceiling) {
  return isUnsteadyCeiling(ceiling) ? 'unsteady ceiling' : null;
}

// What 'unsteady ceiling' means, for a legend under a ranking that shows
// it: { mark, meaning }, or null when no ranked case's ceiling is unsteady.
export function unsteadyLegend(ranked) {
  if (!ranked.some((caseResult) => isUnsteadyCeiling(caseResult.ceiling))) return null;
  return {
    mark: 'unsteady ceiling',
    meaning: `the cipher ceiling's rounds spread by more than ${formatFixed(UNSTEADY_CEILING * 100, 0)}% of their median, so the efficiency set against it may be off by as much.`,
  };
}

const boundingDirection = (ceiling) => (ceiling.encryptBps <= ceiling.decryptBps ? 'encrypt' : 'decrypt');

// (max - min) / median of the slower direction's rounds; null without
// rounds to compare.
function boundingSpread(ceiling) {
  if (!ceiling || !(ceiling.rounds > 1)) return null;
  const direction = boundingDirection(ceiling);
  const median = ceiling[`${direction}Bps`];
  return (ceiling[`${direction}MaxBps`] - ceiling[`${direction}MinBps`]) / median;
}
