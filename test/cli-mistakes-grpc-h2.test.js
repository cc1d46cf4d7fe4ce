import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { emptyFolder, runCli } from './support/cli.js';

// The grpc and h2 transports placed or given wrong: one line naming the
// valid order or choice, exit 2, before anything starts.
const vless = { name: 'vless', params: { id: 'b831381d-6324-4d53-ad4f-8cda48b30811' } };
const cipher = { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } };

test('grpc or h2 not last, tls before them, no ALPN h2, an unknown param or peer transport: one line each, exit 2', async () => {
  for (const [cases, line] of [
    [
      [[{ name: 'ss-base' }, { name: 'grpc' }, cipher]],
      'case 0: presets[1].name: grpc carries the chain and comes after every other preset, where only tls may follow it; in order: ss-base, ss-aead-cipher, grpc',
    ],
    [
      [[vless, { name: 'tls' }, { name: 'h2' }]],
      'case 0: presets[1].name: tls carries the whole chain and must be the last preset; in order: vless, h2, tls',
    ],
    [
      [[vless, { name: 'grpc' }, { name: 'tls' }]],
      'case 0: presets[1].name: grpc inside tls needs tls to offer ALPN h2, as HTTP/2 over TLS requires: give tls params { "alpn": "h2" }',
    ],
    [
      [[vless, { name: 'grpc', params: { servicename: 'x' } }]],
      'case 0: presets[1].params.servicename: grpc takes no parameter "servicename" (did you mean "serviceName"?); valid: serviceName, host, multiMode',
    ],
    [
      [[vless, { name: 'h2', params: { path: 'cipherbench' } }]],
      'case 0: presets[1].params.path: must be a path starting with "/", without spaces or a query, e.g. "/cipherbench"',
    ],
    [
      [{ impl: 'v2ray', protocol: 'vmess', security: 'auto', transport: 'grpc' }],
      'case 0: transport: unknown transport "grpc"; valid: tcp, ws, h2',
    ],
    [
      [{ impl: 'sing-box', protocol: 'vless', transport: 'h2' }],
      'case 0: transport: h2 runs inside TLS (sing-box speaks HTTP/1.1 without it): give tls: true',
    ],
  ]) {
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify(cases));
    const { code, stdout, stderr } = await runCli(['run', 'cases.json', '--no-archive'], { cwd });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /^cipherbench: cases file .*cases\.json has 1 problem:\n/);
    assert.equal(stderr.split('\n')[1], `  ${line}`);
    assert.doesNotMatch(stderr, /\n\s+at /);
  }
});
