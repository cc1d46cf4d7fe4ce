// This checkout's relays beside another checkout's (CIPHERBENCH_BEFORE, the
// folder of an older clone with its node_modules), plain and aes-128-gcm,
// with the bare Node pair as the floor: the A/B of a change to the data
// path, in the same minutes (docs/performance.md, "What a new connection
// costs"). The older relays run as command rows with the same node flags.
//   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/
//   CIPHERBENCH_BEFORE=/tmp/before node bin/cipherbench.js requests benchmark/cases/before-after.cases.js \
//     --repeat 5 --duration 3 --relative-to 0 [--new-connections]
// Without CIPHERBENCH_BEFORE the older rows are left out.
import path from 'node:path';
import { RELAY_NODE_FLAGS } from '../../lib/relay/node-flags.js';

const before = process.env.CIPHERBENCH_BEFORE;
const plain = [{ name: 'ss-base' }];
const aes = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const older = (label, chain) => {
  const relay = `"${process.execPath}" ${RELAY_NODE_FLAGS.join(' ')} "${path.join(before, 'bin/cipherbench.js')}" relay`;
  const presets = `'${JSON.stringify(chain)}'`;
  return {
    impl: 'command',
    label: `before: ${label}`,
    server: `${relay} server --listen {listen} --key {key} --presets ${presets}`,
    client: `${relay} client --listen {listen} --server {server} --forward {forward} --key {key} --presets ${presets}`,
  };
};

export default [
  { impl: 'bare-node' },
  plain,
  ...(before ? [older('plain', plain)] : []),
  aes,
  ...(before ? [older('aes-128-gcm', aes)] : []),
  { impl: 'shadowsocks-libev', method: 'aes-128-gcm' },
];
