import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { locatePeer } from '../lib/peers/index.js';
import { emptyFolder, runCli } from './support/cli.js';
import { freeRunPorts } from './support/ports.js';
import { runRecording } from './support/run-recording.js';

// blinksocks' mux in a run: its mux rows over tcp and ws and our chain in
// its format carry a stream; a row or chain that cannot carry it is one
// line and exit 2 before anything starts.
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
process.env.CIPHERBENCH_BLINKSOCKS ??= fileURLToPath(new URL('../.ci/peers', import.meta.url));

test('blinksocks mux rows and our blinksocks-mux chain run side by side', { timeout: 90_000 }, async (t) => {
  const { reason } = await locatePeer({ impl: 'blinksocks', presets: GCM });
  if (reason) {
    const message = `needs blinksocks 3 (npm install --prefix .ci/peers --no-save blinksocks@3.3.0): ${reason}`;
    if (process.env.CI === 'true') throw new Error(message);
    t.skip(message);
    return;
  }
  const cases = [
    [{ name: 'blinksocks-mux' }, GCM[1]],
    { impl: 'blinksocks', presets: GCM, mux: true },
    { impl: 'blinksocks', presets: GCM, transport: 'ws', mux: true, concurrency: 2 },
  ];
  const { result } = await runRecording({ cases, ports: await freeRunPorts(), engine: 'node' });
  assert.deepEqual(
    result.cases.map((c) => c.label ?? 'ours'),
    ['ours', 'blinksocks aes-128-gcm + mux', 'blinksocks aes-128-gcm + ws + mux'],
  );
  for (const caseResult of result.cases) {
    assert.equal(caseResult.status, 'ok', `case ${caseResult.index}: ${caseResult.reason}`);
    assert.ok(caseResult.receiver.bytes > 0, `case ${caseResult.index} carried bytes`);
  }
});

test('mux over wss, and blinksocks-mux after ss-base: one line each, exit 2, nothing started', async () => {
  const cwd = emptyFolder();
  writeFileSync(
    path.join(cwd, 'cases.json'),
    JSON.stringify([
      { impl: 'blinksocks', presets: GCM, transport: 'wss', mux: true },
      [...GCM, { name: 'blinksocks-mux' }],
    ]),
  );
  const { code, stdout, stderr } = await runCli(['run', 'cases.json'], { cwd });
  assert.equal(code, 2, stderr);
  assert.equal(stdout, '');
  assert.equal(
    stderr,
    [
      `cipherbench: cases file ${path.join(cwd, 'cases.json')} has 2 problems:`,
      "  case 0: mux: blinksocks 3.3.0's mux does not run over wss (its client exits at the first connection): give transport 'ws' or 'tls', or drop mux",
      "  case 1: presets[2].name: blinksocks-mux carries each session's target, in the address preset's place (blinksocks drops ss-base under mux: true); in order: blinksocks-mux, ss-aead-cipher",
      '',
    ].join('\n'),
  );
});
