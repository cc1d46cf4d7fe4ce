// @ts-check
import { formatBitrate } from '../units.js';
import { BITRATE_FIGURE } from './figures.js';

// UDP at an offered rate, or the highest rate within --max-loss.
/** @type {import('./index.js').WorkloadSections} */
export const UDP_SECTIONS = Object.freeze({
  kind: 'udp',
  // The bound of a fixed rate only decides which rows are ranked: the
  // figures are those of the same runs with or without it.
  describe: ({ rateSearch, rate, maxLoss, length }) =>
    `UDP ${rateSearch ? `the highest rate up to ${formatBitrate(rate)} losing at most ${maxLoss}%` : `at ${formatBitrate(rate)} offered`}, ${length}-byte datagrams`,
  figure: BITRATE_FIGURE,
  builtInEngine: 'node (built in: cipherbench send and sink)',
  rankedByCostAtRate: false,
  caseBlock: ['transfer', 'udp', 'cost', 'wire', 'negotiated', 'latency', 'ceiling', 'profile'],
  ranking: ['bitrate'],
});
