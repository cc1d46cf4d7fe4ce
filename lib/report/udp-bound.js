import { formatBitrate, formatFixed } from './units.js';

// A UDP row that lost more than its loss bound (--max-loss, 1% by
// default) is not ranked: what got through is what the kernel's buffers
// let by at a rate the relays could not carry, not the relays' rate
// (docs/udp.md). Every report says so in the same words.

export function isOverBound(caseResult) {
  return Boolean(caseResult.udp?.over_bound);
}

// 'lost 85.2% at 1.00 Gbits/sec, above the 1% bound: not ranked', with
// ', the lowest rate searched' when a search found no rate within it and
// ' (2 of 3 runs)' when not every run lost that much.
export function overBoundText({ udp: { over_bound: over } }) {
  const searched = over.searched ? ', the lowest rate searched' : '';
  const runs = over.of > 1 ? ` (${over.runs} of ${over.of} runs)` : '';
  return `lost ${formatFixed(over.lost_percent, 1)}% at ${formatBitrate(over.offered_bps)}${searched}, above the ${over.percent}% bound${runs}: not ranked`;
}
