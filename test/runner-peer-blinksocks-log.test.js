import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { locatePeer } from '../lib/peers/index.js';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';

const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
// Where .ci/run installs blinksocks; a person may point elsewhere.
const BLINKSOCKS = process.env.CIPHERBENCH_BLINKSOCKS ?? fileURLToPath(new URL('../.ci/peers', import.meta.url));

// blinksocks writes its log beside the path it is given, and into the folder
// it runs in when given none: a row run from a person's checkout must leave
// nothing there. A real row, run as a person runs it, in an empty folder.
test('a blinksocks row leaves no log file in the folder cipherbench runs in', { timeout: 60_000 }, async (t) => {
  const { reason } = await locatePeer(
    { impl: 'blinksocks', presets: GCM },
    { env: { CIPHERBENCH_BLINKSOCKS: BLINKSOCKS } },
  );
  if (reason) {
    const message = `needs blinksocks 3 (npm install --prefix .ci/peers --no-save blinksocks@3.3.0): ${reason}`;
    if (process.env.CI === 'true') throw new Error(message);
    t.skip(message);
    return;
  }
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify([{ impl: 'blinksocks', presets: GCM }]));
  const args = [
    'run',
    'cases.json',
    '--duration',
    '1',
    '--engine',
    'node',
    '--no-ceiling',
    '--no-noise-floor',
    '--no-archive',
    ...(await freePortsFlag()),
  ];
  const { code, stdout, stderr } = await runCli(args, { cwd, env: { CIPHERBENCH_BLINKSOCKS: BLINKSOCKS } });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /blinksocks aes-256-gcm/);
  assert.doesNotMatch(stdout, /skipped|failed/i, stdout);
  assert.deepEqual(readdirSync(cwd), ['cases.json']);
});
