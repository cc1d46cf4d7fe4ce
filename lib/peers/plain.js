// @ts-check
import { BUILT_IN } from './built-in.js';
import ours from './ours.js';

// The Node data path's ceiling: our relay pair with the one preset every
// chain has (ss-base, the target address) and no cipher.
const CHAIN = [{ name: 'ss-base' }];

/** @type {import('../contracts.js').Peer} */
export default {
  ...BUILT_IN,
  impl: 'plain',
  label: () => 'plain (our relays, no cipher)',
  inbounds: ours.inbounds,
  carriesUdp: () => true,
  plan: ({ inbound }, context) => ours.plan({ presets: CHAIN, inbound }, context),
};
