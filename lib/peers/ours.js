import { LEGACY_FLAG } from '../crypto/legacy-provider.js';
import { chainNeedsLegacyProvider, newChainPassword } from '../chain/requirements.js';
import { isLoopbackHost } from '../relay/loopback.js';
import { RELAY_NODE_FLAGS } from '../relay/node-flags.js';
import { CLI } from '../process/cli-path.js';
import { READY_LINE } from '../process/ready-line.js';
import { BUILT_IN } from './built-in.js';

// Our own relay pair (`cipherbench relay server|client`) carrying a preset
// chain: what a chain case in cases.js runs, and `plain` with a bare ss-base.
function ourRelays(chain, { ports, key, serverHost = '127.0.0.1', serverBind = serverHost }) {
  const node = [...RELAY_NODE_FLAGS, ...(chainNeedsLegacyProvider(chain) ? [LEGACY_FLAG] : []), CLI];
  // debug: a relay says why it dropped a connection (a tag mismatch, a
  // malformed header), which a failed case's reason then carries; a
  // benchmark makes few connections, so the log stays short.
  const presets = ['--key', key, '--presets', JSON.stringify(chain), '--log-level', 'debug'];
  return [
    {
      role: 'server',
      label: 'relay server',
      file: process.execPath,
      // Beyond loopback (a --link or --remote host) a relay refuses a chain
      // without integrity unless told: the run's key is random, and the
      // benchmark measures what the person chose.
      args: [...node, 'relay', 'server', '--listen', `${serverBind}:${ports.server}`, ...presets, ...(isLoopbackHost(serverBind) ? [] : ['--allow-unauthenticated'])],
      readiness: { stdout: READY_LINE },
    },
    {
      role: 'client',
      label: 'relay client',
      file: process.execPath,
      args: [...node, 'relay', 'client', '--listen', `127.0.0.1:${ports.client}`, '--server', `${serverHost}:${ports.server}`, '--forward', `127.0.0.1:${ports.target}`, ...presets],
      readiness: { stdout: READY_LINE },
    },
  ];
}

// The peer of every case that is a preset chain rather than a reference
// row: a case names it by being an array, so it has no impl. It runs on a
// --remote host as the remote cipherbench, and takes the key its chain's
// format asks for, if any.
export default {
  ...BUILT_IN,
  key: ({ presets }) => newChainPassword(presets),
  plan: async ({ presets }, context) => ({ relays: ourRelays(presets, context), entryPort: context.ports.client }),
};
