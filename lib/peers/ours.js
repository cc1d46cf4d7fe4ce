// @ts-check
import { LEGACY_FLAG } from '../crypto/legacy-provider.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chainForRun, chainNeedsLegacyProvider, newChainPassword } from '../chain/requirements.js';
import { chainHasUdp } from '../chain/udp-form.js';
import { isLoopbackHost } from '../relay/loopback.js';
import { RELAY_NODE_FLAGS } from '../relay/node-flags.js';
import { CLI } from '../process/cli-path.js';
import { READY_LINE } from '../process/ready-line.js';
import { BUILT_IN } from './built-in.js';
import { writeCertificateFiles } from './certificate-files.js';
import { CASE_INBOUNDS } from './inbounds.js';
import { CATALOGUE } from '../presets/index.js';

// Our own relay pair (`cipherbench relay server|client`) carrying a preset
// chain: what a chain case in cases.js runs, and `plain` with a bare ss-base.
function ourRelays(chain, inbound, { ports, key, serverHost = '127.0.0.1', serverBind = serverHost, udp = false }) {
  const node = [...RELAY_NODE_FLAGS, ...(chainNeedsLegacyProvider(CATALOGUE, chain) ? [LEGACY_FLAG] : []), CLI];
  // debug: a relay says why it dropped a connection (a tag mismatch, a
  // malformed header), which a failed case's reason then carries; a
  // benchmark makes few connections, so the log stays short.
  const presets = ['--key', key, '--presets', JSON.stringify(chain), '--log-level', 'debug', ...(udp ? ['--udp'] : [])];
  return [
    {
      role: 'server',
      label: 'relay server',
      file: process.execPath,
      // Beyond loopback (a --link or --remote host) a relay refuses a chain
      // without integrity unless told: the run's key is random, and the
      // benchmark measures what the person chose.
      args: [
        ...node,
        'relay',
        'server',
        '--listen',
        `${serverBind}:${ports.server}`,
        ...presets,
        ...(isLoopbackHost(serverBind) ? [] : ['--allow-unauthenticated']),
      ],
      readiness: { stdout: READY_LINE },
    },
    {
      role: 'client',
      label: 'relay client',
      file: process.execPath,
      args: [
        ...node,
        'relay',
        'client',
        '--listen',
        `127.0.0.1:${ports.client}`,
        '--server',
        `${serverHost}:${ports.server}`,
        ...inboundArgs(inbound, ports),
        ...presets,
      ],
      readiness: { stdout: READY_LINE },
    },
  ];
}

// The relay client's --inbound for a case's: HTTP CONNECT and plain
// proxying are one inbound, as in every HTTP proxy.
const inboundArgs = (inbound = 'tunnel', ports) =>
  inbound === 'tunnel'
    ? ['--forward', `127.0.0.1:${ports.target}`]
    : ['--inbound', inbound === 'socks5' ? 'socks5' : 'http'];

// The peer of every case that is a preset chain rather than a reference
// row: a case names it by being an array, so it has no impl. It runs on a
// --remote host as the remote cipherbench, and takes the key its chain's
// format asks for, if any.
/** @type {import('../contracts.js').Peer} */
export default {
  ...BUILT_IN,
  key: ({ presets }) => newChainPassword(CATALOGUE, presets),
  inbounds: CASE_INBOUNDS,
  carriesUdp: ({ presets }) => chainHasUdp(CATALOGUE, presets),
  plan: async ({ presets, inbound }, context) => {
    let folder = null;
    const chain = chainForRun(CATALOGUE, presets, () =>
      writeCertificateFiles((folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-ours-')))),
    );
    const cleanup = folder ? () => rmSync(folder, { recursive: true, force: true }) : undefined;
    return { relays: ourRelays(chain, inbound, context), entryPort: context.ports.client, cleanup };
  },
};
