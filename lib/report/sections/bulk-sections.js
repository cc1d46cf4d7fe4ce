// @ts-check
import { formatBitrate } from '../units.js';
import { BITRATE_FIGURE } from './figures.js';

// A TCP bulk stream, at full speed or at a fixed --rate.
/** @type {import('./index.js').WorkloadSections} */
export const BULK_SECTIONS = Object.freeze({
  kind: 'tcp',
  describe: ({ rate, parallel }) =>
    `TCP bulk ${rate ? `at ${formatBitrate(rate)} offered` : 'at full speed'}, ${parallel} ${parallel === 1 ? 'stream' : 'streams'}`,
  figure: BITRATE_FIGURE,
  builtInEngine: 'node (built in: cipherbench send and sink)',
  rankedByCostAtRate: true,
  caseBlock: ['transfer', 'cost', 'wire', 'negotiated', 'latency', 'ceiling', 'profile'],
  ranking: ['bitrate'],
});
