// @ts-check
import { formatBitrate, formatFixed } from './units.js';

// A UDP row that lost more than its loss bound (--max-loss, 1% by
// default) is not ranked: what got through is what the kernel's buffers
// let by at a rate the relays could not carry, not the relays' rate
// (docs/udp.md). Every report says so in the same words.

export function isOverBound(caseResult) {
  return Boolean(caseResult.udp?.overBound);
}

// 'lost 85.2% at 1.00 Gbits/sec, above the 1% bound: not ranked', with
// ', the lowest rate searched' when a search found no rate within it and
// ' (2 of 3 runs)' when not every run lost that much.
export function overBoundText({ udp: { overBound: over } }) {
  const searched = over.searched ? ', the lowest rate searched' : '';
  const runs = over.of > 1 ? ` (${over.runs} of ${over.of} runs)` : '';
  return `lost ${formatFixed(over.lost_percent, 1)}% at ${formatBitrate(over.offeredBps)}${searched}, above the ${over.percent}% bound${runs}: not ranked`;
}

// What a --max-loss search found, for a case block's 'max rate' line: the
// rate (the median over the rounds that found one) and in how many
// rounds, or that none was found and the loss at the lowest rate tried,
// then which runs the block's other figures are from, so that the block
// says one thing. '' for a case that was not searched.
export function searchedRateText({ udp, runs }) {
  if (!udp?.maxLoss) return '';
  const { percent, rateBps: rate } = udp.maxLoss;
  const over = udp.overBound?.searched ? udp.overBound : null;
  const rounds = over ? over.of : runs.filter((run) => run.udp).length;
  const missed = over ? over.runs : 0;
  const lowest =
    over && `lost ${formatFixed(over.lost_percent, 1)}% at ${formatBitrate(over.offeredBps)}, the lowest rate searched`;
  const found =
    rate === null
      ? `none with at most ${percent}% lost${rounds > 1 ? ` in any of ${rounds} rounds` : ''} (${lowest}): not ranked`
      : `${formatBitrate(rate)} offered with at most ${percent}% lost${foundIn(rounds, missed, lowest)}`;
  const source =
    rounds === 1
      ? "the figures above are that run's"
      : `the figures above are the medians of each round's run at the rate it found${missed > 0 ? ' or its lowest' : ''}`;
  return `${found}; ${source}`;
}

function foundIn(rounds, missed, lowest) {
  if (missed > 0) return ` in ${rounds - missed} of ${rounds} rounds; none in ${missed} (${lowest}): not ranked`;
  return rounds > 1 ? ` (the median of ${rounds} rounds)` : '';
}
