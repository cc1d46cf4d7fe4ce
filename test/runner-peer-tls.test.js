import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { locatePeer, validateReference } from '../lib/peers/index.js';
import { formatMarkdownReport } from '../lib/report/markdown-report.js';
import { formatCaseBlock } from '../lib/report/text-report.js';
import { freeRunPorts } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';
import { requirePrograms } from './support/programs.js';
import { runRecording } from './support/run-recording.js';

// The TLS rows: V2Ray's trojan, vless and vmess over TLS, trojan-gfw's
// server and forward client, and our trojan and vless chains ending in
// tls, each measured for a second with a certificate made for the run,
// which every client verifies; what our client negotiated is in the result.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';

test(
  'tls rows: V2Ray trojan, vless and vmess over TLS, trojan-gfw and our chains run and are measured',
  { timeout: 120_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'v2ray', 'trojan', 'iperf3')) return;
    const configs = new Map();
    const { result, pids } = await runRecording(
      {
        ports,
        cases: [
          { impl: 'v2ray', protocol: 'trojan', tls: true },
          { impl: 'v2ray', protocol: 'vless', tls: true },
          { impl: 'v2ray', protocol: 'vmess', security: 'aes-128-gcm', tls: true },
          { impl: 'trojan-gfw' },
          [{ name: 'trojan' }, { name: 'tls', params: { ciphers: 'TLS_CHACHA20_POLY1305_SHA256' } }],
          [{ name: 'vless', params: { id: ID } }, { name: 'tls' }],
        ],
      },
      (event) => {
        if (event.type !== 'process-started') return;
        const args = event.command;
        configs.set(`${event.index} ${event.role}`, args);
      },
    );
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', `case ${caseResult.index}: ${caseResult.reason}`);
      assert.ok(caseResult.receiver.bits_per_second > 0, `case ${caseResult.index} measured`);
    }
    assert.deepEqual(
      result.cases.slice(0, 4).map((c) => c.label),
      ['v2ray trojan + tls', 'v2ray vless + tls', 'v2ray vmess aes-128-gcm + tls', 'trojan-gfw'],
    );
    assert.deepEqual(
      result.cases.slice(0, 4).map((c) => c.negotiated),
      [null, null, null, null],
    );
    assert.equal(result.cases[4].negotiated, 'TLSv1.3 TLS_CHACHA20_POLY1305_SHA256, certificate verified');
    assert.match(result.cases[5].negotiated, /^TLSv1\.3 TLS_\w+, certificate verified$/);
    // The reports show it: the text block under the cost, a Markdown column.
    assert.match(
      formatCaseBlock(result.cases[4]),
      /\ntransport {8}TLSv1\.3 TLS_CHACHA20_POLY1305_SHA256, certificate verified\n/,
    );
    assert.doesNotMatch(formatCaseBlock(result.cases[0]), /transport/);
    const markdown = formatMarkdownReport(result);
    assert.match(markdown, /\| Transport \|/);
    assert.match(markdown, /TLSv1\.3 TLS_CHACHA20_POLY1305_SHA256, certificate verified/);
    assert.match(configs.get('3 relay-server').join(' '), /trojan -c \S+server\.json/);
    assert.match(configs.get('3 relay-client').join(' '), /trojan -c \S+client\.json/);
    // Our relays got the run's certificate files, and they are gone with the run.
    const presets = JSON.parse(
      configs.get('4 relay-client').at(configs.get('4 relay-client').indexOf('--presets') + 1),
    );
    assert.ok(presets[1].params.cert && presets[1].params.ca === presets[1].params.cert, JSON.stringify(presets));
    assert.equal(existsSync(presets[1].params.cert), false, "the run's certificate folder is removed");
    assertAllGone(pids);
  },
);

test('tls rows: fields are checked, and a missing trojan is a skip with an install hint', async () => {
  assert.deepEqual(validateReference({ impl: 'v2ray', protocol: 'trojan', tls: true }), []);
  assert.deepEqual(validateReference({ impl: 'v2ray', protocol: 'vless' }), []);
  assert.deepEqual(validateReference({ impl: 'v2ray', protocol: 'vmess', security: 'none', tls: true }), []);
  assert.deepEqual(
    validateReference({ impl: 'v2ray', protocol: 'shadowsocks' }).map((p) => p.message),
    ['unknown protocol "shadowsocks"; valid: vmess, trojan, vless'],
  );
  assert.deepEqual(
    validateReference({ impl: 'v2ray', protocol: 'trojan', security: 'aes-128-gcm', tls: 'yes' }).map((p) => p.field),
    ['tls', 'security'],
  );
  assert.deepEqual(
    validateReference({ impl: 'trojan-gfw', tls: true }).map((p) => p.field),
    ['tls'],
  );
  const { reason } = await locatePeer({ impl: 'trojan-gfw' }, { env: { PATH: '/nonexistent' } });
  assert.equal(
    reason,
    'not installed: trojan not found on PATH; install it with `apt-get install trojan` (Debian/Ubuntu, 1.16) ' +
      'or put a trojan binary (github.com/trojan-gfw/trojan/releases) on PATH',
  );
});
