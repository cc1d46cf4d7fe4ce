// This checkout's relays beside another checkout's (CIPHERBENCH_BEFORE, the
// folder of an older clone with its node_modules), with the bare Node pair
// as the floor: the A/B of a change to the data path, in the same minutes
// (docs/notes/performance.md, "What a new connection costs"). Both run as command
// rows with the relays' node flags, so they differ only by their code.
//   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/
//   CIPHERBENCH_BEFORE=/tmp/before node bin/cipherbench.js requests benchmark/cases/before-after.cases.js \
//     --repeat 5 --duration 3 --relative-to 0 [--new-connections]
// The chains are plain and aes-128-gcm; with CIPHERBENCH_CHAINS=handshakes,
// ss-2022 (2022-blake3-aes-128-gcm, a fixed test PSK) and VMess AEAD
// (aes-128-gcm). Without CIPHERBENCH_BEFORE the older rows are left out.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELAY_NODE_FLAGS } from '../../lib/relay/node-flags.js';

const before = process.env.CIPHERBENCH_BEFORE;
const here = fileURLToPath(new URL('../..', import.meta.url));
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
// A PSK for tests only: ss-2022 takes base64 of 16 bytes, not the run's password.
const PSK = 'AAECAwQFBgcICQoLDA0ODw==';
const CHAINS = {
  default: [
    { label: 'plain', chain: [{ name: 'ss-base' }] },
    {
      label: 'aes-128-gcm',
      chain: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }],
    },
  ],
  handshakes: [
    { label: 'ss-2022', chain: [{ name: 'ss-2022', params: { method: '2022-blake3-aes-128-gcm' } }], key: PSK },
    { label: 'vmess', chain: [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }] },
  ],
};
const chains = CHAINS[process.env.CIPHERBENCH_CHAINS ?? 'default'];
if (!chains) throw new Error(`CIPHERBENCH_CHAINS is one of ${Object.keys(CHAINS).join(', ')}`);

const relayRow = (tree, label, { chain, key = '{key}' }) => {
  const relay = `"${process.execPath}" ${RELAY_NODE_FLAGS.join(' ')} "${path.join(tree, 'bin/cipherbench.js')}" relay`;
  const presets = `'${JSON.stringify(chain)}'`;
  return {
    impl: 'command',
    label,
    server: `${relay} server --listen {listen} --key ${key} --presets ${presets}`,
    client: `${relay} client --listen {listen} --server {server} --forward {forward} --key ${key} --presets ${presets}`,
  };
};

export default [
  { impl: 'bare-node' },
  ...chains.flatMap((c) => [
    relayRow(here, c.label, c),
    ...(before ? [relayRow(before, `before: ${c.label}`, c)] : []),
  ]),
  { impl: 'shadowsocks-libev', method: 'aes-128-gcm' },
];
