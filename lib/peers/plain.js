import { ourRelays } from './ours.js';

// The Node data path's ceiling: our relay pair with the one preset every
// chain has (ss-base, the target address) and no cipher.
const CHAIN = [{ name: 'ss-base' }];

export default {
  impl: 'plain',
  fields: [],
  validate: () => [],
  label: () => 'plain (our relays, no cipher)',
  locate: async () => ({ found: {} }),
  plan: async (reference, context) => ({ relays: ourRelays(CHAIN, context), entryPort: context.ports.client }),
};
