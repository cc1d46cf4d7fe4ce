import assert from 'node:assert/strict';
import { test } from 'node:test';
import { locatePeer, validateReference } from '../lib/peers/index.js';
import { freeRunPorts } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';
import { requirePrograms } from './support/programs.js';
import { runRecording } from './support/run-recording.js';

// The v2ray reference row: V2Ray 4.x at both ends (a dokodemo-door inbound
// with a vmess outbound, and a vmess inbound with a freedom outbound),
// measured for one second like our own relays, beside our v2ray-vmess
// chain with the same security. Ports no other test uses.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';

test('v2ray row: V2Ray at both ends runs and is measured beside our chain', { timeout: 60_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!requirePrograms(t, 'v2ray', 'iperf3')) return;
  const commands = new Map();
  const { result, pids } = await runRecording(
    {
      ports,
      cases: [
        { impl: 'v2ray', security: 'aes-128-gcm' },
        [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }],
        { impl: 'v2ray', security: 'chacha20-poly1305', alterId: 4 },
      ],
    },
    (event) => {
      if (event.type !== 'process-started') return;
      commands.set(`${event.index} ${event.role}`, event.command);
    },
  );
  const labels = result.cases.map((c) => c.label ?? c.case?.label);
  for (const caseResult of result.cases) {
    assert.equal(caseResult.status, 'ok', `case ${caseResult.index}: ${caseResult.reason}`);
    assert.ok(caseResult.receiver.bits_per_second > 0, `case ${caseResult.index} measured`);
  }
  assert.match(JSON.stringify(result.cases[0]), /v2ray vmess aes-128-gcm/, `labels: ${labels}`);
  assert.match(JSON.stringify(result.cases[2]), /v2ray vmess chacha20-poly1305 alterId 4/);
  assert.match(commands.get('0 relay-server').join(' '), /v2ray -config \S+server\.json/);
  assert.match(commands.get('0 relay-client').join(' '), /v2ray -config \S+client\.json/);
  assertAllGone(pids);
});

test('v2ray row: fields are checked, and a missing v2ray is a skip with an install hint', async () => {
  assert.deepEqual(validateReference({ impl: 'v2ray', security: 'aes-128-gcm', alterId: 2 }), []);
  assert.deepEqual(
    validateReference({ impl: 'v2ray' }).map((p) => p.field),
    ['security'],
  );
  assert.match(
    validateReference({ impl: 'v2ray', security: 'aes-256-gcm' })[0].message,
    /valid: aes-128-gcm, chacha20-poly1305, none, auto/,
  );
  assert.equal(validateReference({ impl: 'v2ray', security: 'none', alterId: 1.5 })[0].field, 'alterId');
  assert.equal(validateReference({ impl: 'v2ray', security: 'none', method: 'x' })[0].field, 'method');
  const { reason } = await locatePeer({ impl: 'v2ray', security: 'none' }, { env: { PATH: '/nonexistent' } });
  assert.equal(
    reason,
    'not installed: v2ray not found on PATH; install it with `apt-get install v2ray` (Debian/Ubuntu, 4.x) ' +
      'or put a v2ray 4.x binary (github.com/v2fly/v2ray-core/releases) on PATH',
  );
});
