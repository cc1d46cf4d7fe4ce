// @ts-check
import { RELAY_NODE_FLAGS } from '../relay/node-flags.js';
import { CLI } from '../process/cli-path.js';
import { READY_LINE } from '../process/ready-line.js';
import { BUILT_IN } from './built-in.js';

// Node's own floor: two `cipherbench bare-relay` processes in a row, each
// accepting, connecting to the next hop and piping (UDP: receiving and
// sending on), with no protocol at all. What our pair costs beyond it is
// ours to cut; what it costs is Node's (docs/performance.md).
const half = (role, listen, forward, udp) => ({
  role,
  label: `bare node ${role}`,
  file: process.execPath,
  args: [...RELAY_NODE_FLAGS, CLI, 'bare-relay', '--listen', listen, '--forward', forward, ...(udp ? ['--udp'] : [])],
  readiness: { stdout: READY_LINE },
});

/** @type {import('../contracts.js').Peer} */
export default {
  ...BUILT_IN,
  impl: 'bare-node',
  label: () => 'bare Node relay pair (accept, connect, pipe)',
  carriesUdp: () => true,
  plan: async (reference, { ports, serverHost = '127.0.0.1', serverBind = serverHost, udp = false }) => ({
    relays: [
      half('server', `${serverBind}:${ports.server}`, `127.0.0.1:${ports.target}`, udp),
      half('client', `127.0.0.1:${ports.client}`, `${serverHost}:${ports.server}`, udp),
    ],
    entryPort: ports.client,
  }),
};
