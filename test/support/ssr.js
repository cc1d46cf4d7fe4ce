import path from 'node:path';
import ssr from '../../lib/peers/ssr.js';
import { startProcess } from './processes.js';

// The Python ShadowsocksR relay, started as the ssr peer module plans it.
// Resolves null after skipping (or, under CI, failing) when its virtual
// environment is missing.
export async function locateSsr(t) {
  const { found, missing } = await ssr.locate({});
  if (found) return found;
  const message = `needs ${missing}; ${ssr.hint}`;
  if (process.env.CI === 'true') throw new Error(message);
  t.skip(message);
  return null;
}

// Starts the halves of one plan named in `roles` (the server, the client
// (a tunnel to ports.target) or both); resolves with the plan's cleanup and
// the folder that holds its configs.
export async function startSsr(found, { method, protocol, key, ports, roles = ['server', 'client'] }) {
  const plan = await ssr.plan({ method, protocol }, { ports, key, found });
  const relays = plan.relays.filter((relay) => roles.includes(relay.role));
  await Promise.all(relays.map((relay) => startProcess(relay.file, relay.args, { ready: /listening on / })));
  return { cleanup: plan.cleanup, folder: path.dirname(plan.relays[0].args[2]) };
}

export const SSR_PROTOCOLS = {
  'ssr-auth-aes128-md5': 'auth_aes128_md5',
  'ssr-auth-aes128-sha1': 'auth_aes128_sha1',
  'ssr-auth-chain-a': 'auth_chain_a',
  'ssr-auth-chain-b': 'auth_chain_b',
};

export const ssrChain = (preset, method) => [
  { name: 'ss-base' },
  { name: preset },
  { name: 'ss-stream-cipher', params: { method } },
];
