import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import blinksocks from '../lib/peers/blinksocks.js';
import { locatePeer } from '../lib/peers/index.js';
import { freeRunPorts } from './support/ports.js';
import { runRecording } from './support/run-recording.js';

// blinksocks rows over its ws://, wss:// and tls:// services, beside our
// chain over ws: what each row's configs say, then one real run of them.
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
process.env.CIPHERBENCH_BLINKSOCKS ??= fileURLToPath(new URL('../.ci/peers', import.meta.url));

test("a row's transport is its services' scheme, on /cipherbench for ws and wss, with a certificate its client trusts for wss and tls", async () => {
  const ports = { client: 1081, server: 1082, target: 1083 };
  for (const [transport, service] of [
    ['tcp', 'tcp://127.0.0.1:1082'],
    ['ws', 'ws://127.0.0.1:1082/cipherbench'],
    ['wss', 'wss://127.0.0.1:1082/cipherbench'],
    ['tls', 'tls://127.0.0.1:1082'],
  ]) {
    const row = { impl: 'blinksocks', presets: GCM, ...(transport === 'tcp' ? {} : { transport }) };
    assert.deepEqual(blinksocks.validate(row), []);
    const { relays, cleanup } = await blinksocks.plan(row, { ports, key: 'k', found: { blinksocks: 'start.js' } });
    try {
      const [server, client] = relays.map((relay) => JSON.parse(readFileSync(relay.args.at(-1), 'utf8')));
      assert.equal(server.service, service);
      assert.equal(client.server.service, service);
      assert.equal(client.service, 'tcp://127.0.0.1:1081?forward=127.0.0.1:1083');
      if (['wss', 'tls'].includes(transport)) {
        assert.equal(client.server.tls_cert, server.tls_cert);
        assert.equal(client.server.tls_cert_self_signed, true);
        const certificate = new X509Certificate(readFileSync(server.tls_cert));
        assert.ok(certificate.checkIP('127.0.0.1') && certificate.checkHost('localhost'), certificate.subjectAltName);
        assert.ok(readFileSync(server.tls_key, 'utf8').includes('PRIVATE KEY'));
      } else {
        assert.equal(server.tls_cert, undefined);
      }
      assert.equal(blinksocks.label(row), `blinksocks aes-256-gcm${transport === 'tcp' ? '' : ` + ${transport}`}`);
    } finally {
      await cleanup();
    }
  }
});

test('blinksocks rows over ws, wss and tls run beside our chain over ws', { timeout: 90_000 }, async (t) => {
  const { reason } = await locatePeer({ impl: 'blinksocks', presets: GCM });
  if (reason) {
    const message = `needs blinksocks 3 (npm install --prefix .ci/peers --no-save blinksocks@3.3.0): ${reason}`;
    if (process.env.CI === 'true') throw new Error(message);
    t.skip(message);
    return;
  }
  const cases = [
    [...GCM, { name: 'ws' }],
    { impl: 'blinksocks', presets: GCM, transport: 'ws' },
    { impl: 'blinksocks', presets: GCM, transport: 'wss' },
    { impl: 'blinksocks', presets: GCM, transport: 'tls' },
  ];
  const { result } = await runRecording({ cases, ports: await freeRunPorts(), engine: 'node' });
  assert.deepEqual(
    result.cases.map((c) => c.label ?? 'ours'),
    ['ours', 'blinksocks aes-256-gcm + ws', 'blinksocks aes-256-gcm + wss', 'blinksocks aes-256-gcm + tls'],
  );
  for (const caseResult of result.cases) {
    assert.equal(caseResult.status, 'ok', `case ${caseResult.index}: ${caseResult.reason}`);
    assert.ok(caseResult.receiver.bytes > 0, `case ${caseResult.index} carried bytes`);
  }
});
