import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGoPeer } from './go-peers.js';
import { startProcess } from './processes.js';

// What the Mux.Cool wire tests (TCP and UDP) share: the references whose
// mux our [protocol, mux] chains meet, and starting one from a config
// written for the test.

const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const VMESS_GCM = {
  user: { protocol: 'vmess', id: ID, security: 'aes-128-gcm' },
  address: { name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } },
};

// { program, label, user, address }: `user` is what the peer's config
// functions take, `address` our chain's first preset for the same wire.
export const MUX_COOL_PAIRINGS = [
  {
    program: 'xray',
    label: 'VLESS',
    user: { protocol: 'vless', id: ID },
    address: { name: 'vless', params: { id: ID } },
  },
  { program: 'xray', label: 'VMess aes-128-gcm', ...VMESS_GCM },
  { program: 'v2ray', label: 'VMess aes-128-gcm', ...VMESS_GCM },
];

// Xray (`run -c FILE`) or V2Ray 4.34 (`-config FILE`), ready once it says
// it started and listens on `port` (TCP).
export function startMuxCoolPeer(program, folder, name, config, port) {
  if (program === 'xray') return startGoPeer('xray', folder, name, config, port);
  const file = path.join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return startProcess('v2ray', ['-config', file], { ready: /started/, listening: port });
}
