// @ts-check
import { BUILT_IN } from './built-in.js';

// The machine's ceiling: the traffic engine's client straight to its
// server on the target port, no relay in between (over the link, when the
// run has one, to the server's side of it).
/** @type {import('../contracts.js').Peer} */
export default {
  ...BUILT_IN,
  impl: 'direct',
  label: () => 'direct (no relay)',
  carriesUdp: () => true,
  plan: async (reference, { ports, serverHost = '127.0.0.1' }) => ({
    relays: [],
    entryHost: serverHost,
    entryPort: ports.target,
  }),
};
