import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { caseIdentity, validateReference } from '../lib/peers/index.js';
import { freeRunPorts } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';
import { requirePrograms } from './support/programs.js';
import { runRecording } from './support/run-recording.js';
import { stopAll } from './support/processes.js';
import { locateSsr, startSsr } from './support/ssr.js';

// The `ssr` reference row: the Python ShadowsocksR relay's server and its
// local as a port forward, measured like any row for a second, beside our
// relays carrying the same protocol. Ports no other test uses.
const ROW = { impl: 'ssr', protocol: 'auth_chain_a', method: 'none' };
const OURS = [
  { name: 'ss-base' },
  { name: 'ssr-auth-chain-a' },
  { name: 'ss-stream-cipher', params: { method: 'none' } },
];

test('an ssr row says what is wrong with it', () => {
  assert.deepEqual(validateReference(ROW), []);
  assert.deepEqual(
    validateReference({ impl: 'ssr', method: 'none' }).map((p) => p.field),
    ['protocol'],
  );
  assert.match(
    validateReference({ impl: 'ssr', protocol: 'auth_sha1_v4', method: 'none' })[0].message,
    /unknown protocol "auth_sha1_v4"; valid: auth_aes128_md5/,
  );
  assert.match(
    validateReference({ impl: 'ssr', protocol: 'auth_chain_a', method: 'aes-256-gcm' })[0].message,
    /does not support "aes-256-gcm"/,
  );
  assert.equal(caseIdentity(ROW).label, 'ssr auth_chain_a none (Python reference, slow)');
});

test('the Python ShadowsocksR relay runs as a reference row', { timeout: 60_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!(await locateSsr(t)) || !requirePrograms(t, 'iperf3')) return;
  const commands = new Map();
  const { result, pids } = await runRecording({ cases: [ROW, OURS], ports }, (event) => {
    if (event.type !== 'process-started') return;
    commands.set(`${event.index} ${event.role}`, event.command);
  });
  for (const caseResult of result.cases) {
    assert.equal(caseResult.status, 'ok', caseResult.reason);
    assert.ok(caseResult.receiver.bits_per_second > 0, `case ${caseResult.index} measured nothing`);
  }
  assert.ok(commands.get('0 relay-client').includes('tunnel'), 'the Python local runs as a port forward');
  assert.ok(commands.get('0 relay-server').some((word) => word.endsWith('ssr-relay.py')));
  assertAllGone(pids);
});

// The package makes its settings folder under ~ when it finds none
// (exists, then mkdir), and the runner starts both halves at once: in one
// shared HOME the half that looked second died with FileExistsError (a
// fresh-clone CI run, 2026-11-27). Each half keeps a HOME of its own.
test(
  'the two Python halves, started together, keep their settings in folders of their own',
  { timeout: 60_000 },
  async (t) => {
    const found = await locateSsr(t);
    if (!found) return;
    const ports = await freeRunPorts();
    const { cleanup, folder } = await startSsr(found, {
      method: 'none',
      protocol: 'auth_chain_a',
      key: 'ssr-home',
      ports,
    });
    t.after(async () => {
      await stopAll();
      await cleanup();
    });
    for (const role of ['server', 'tunnel']) {
      assert.ok(
        statSync(path.join(folder, role, '.ssr-command-client')).isDirectory(),
        `${role} keeps its settings in ${role}/`,
      );
    }
  },
);
