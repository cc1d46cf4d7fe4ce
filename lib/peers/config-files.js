// @ts-check
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

// Each run of a peer configured by files gets a folder of its own:
// configsIn(folder) gives (or resolves with) { name: config }, each written there as
// NAME.json. Resolves with { files: { name: path }, cleanup }; cleanup()
// removes the folder, with whatever the peer kept beside the configs (its
// logs, its settings), when the run ends.
export async function writeConfigFiles(impl, configsIn) {
  const folder = await mkdtemp(path.join(tmpdir(), `cipherbench-${impl}-`));
  const files = {};
  for (const [name, config] of Object.entries(await configsIn(folder))) {
    files[name] = path.join(folder, `${name}.json`);
    await writeFile(files[name], JSON.stringify(config));
  }
  return { files, cleanup: () => rm(folder, { recursive: true, force: true }) };
}

// The two relays of a peer configured by files: `file` run with each
// role's config (`args(config)`), labelled `label(role)`, ready once it
// listens on its port; `serverReadiness` adds to the server's ({ udp:
// true } for a QUIC server, which binds UDP only).
export const configuredRelays = ({ files, ports, file, args, label, serverReadiness = {} }) =>
  ['server', 'client'].map((role) => ({
    role,
    label: label(role),
    file,
    args: args(files[role]),
    readiness: role === 'server' ? { listening: ports.server, ...serverReadiness } : { listening: ports.client },
  }));
