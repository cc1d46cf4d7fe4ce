// What capping a relay's young generation costs its throughput: our
// aes-256-gcm pair started as node's defaults leave it (semi-spaces grow to
// 16 MB) and with --max-semi-space-size=4, the flag the runner and the
// tests start our relays with (lib/relay/node-flags.js), both as command
// rows so neither follows the runner's choice; shadowsocks-libev's row is
// the control for the machine's load (docs/notes/reliability.md). Run with
//   node bin/cipherbench.js run benchmark/cases/young-generation.cases.js --repeat 5 --no-ceiling \
//     --relative-to 'node defaults'
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../bin/cipherbench.js', import.meta.url));
const PRESETS = `'${JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }])}'`;
const pair = (label, flags) => ({
  impl: 'command',
  label,
  server: `"${process.execPath}" ${flags} "${CLI}" relay server --listen {listen} --key {key} --presets ${PRESETS}`,
  client: `"${process.execPath}" ${flags} "${CLI}" relay client --listen {listen} --server {server} --forward {forward} --key {key} --presets ${PRESETS}`,
});

export default [
  pair('node defaults', ''),
  pair('--max-semi-space-size=4', '--max-semi-space-size=4'),
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
];
