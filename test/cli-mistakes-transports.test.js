import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { emptyFolder, runCli } from './support/cli.js';

// A transport in the wrong place, a disguise under one, a misspelt param
// or a peer row's misspelt transport: one line each naming the valid
// choice, exit 2, before anything starts (no report, no relay).
const SS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const VLESS = { name: 'vless', params: { id: 'a3482e88-686a-4a58-8126-99c9df64b7bf' } };
const ws = (params) => ({ name: 'ws', ...(params ? { params } : {}) });
const tls = { name: 'tls' };

const MISTAKES = [
  [
    [SS[0], ws(), SS[1]],
    'presets[1].name: ws carries the chain and comes after every other preset, where only tls may follow it; in order: ss-base, ss-aead-cipher, ws',
  ],
  [
    [VLESS, tls, ws()],
    'presets[1].name: tls carries the whole chain and must be the last preset; in order: vless, ws, tls',
  ],
  [
    [...SS, { name: 'obfs-http' }, ws()],
    'presets[2].name: obfs-http disguises the wire, and ws carries it: a chain takes one of them; without obfs-http, in order: ss-base, ss-aead-cipher, ws',
  ],
  // The order the transport rules alone would name, with the disguise
  // before ws, is no valid chain either.
  [
    [...SS, ws(), { name: 'obfs-tls1.2-ticket', params: { sni: 'example.com' } }, tls],
    'presets[3].name: obfs-tls1.2-ticket disguises the wire, and ws + tls carry it: a chain takes one of them; without obfs-tls1.2-ticket, in order: ss-base, ss-aead-cipher, ws, tls',
  ],
  [
    [...SS, ws({ pth: '/x' })],
    'presets[2].params.pth: ws takes no parameter "pth" (did you mean "path"?); valid: path, host',
  ],
  [
    [VLESS, { name: 'httpupgrade', params: { hots: 'example.com' } }],
    'presets[1].params.hots: httpupgrade takes no parameter "hots" (did you mean "host"?); valid: path, host',
  ],
  [
    { impl: 'blinksocks', presets: SS, transport: 'wws' },
    'transport: unknown transport "wws" (did you mean "ws"?); valid: tcp, ws, wss, tls',
  ],
  [
    { impl: 'blinksocks', presets: SS, transport: 'httpupgrade' },
    "transport: unknown transport \"httpupgrade\": xray carries it ({ impl: 'xray', transport: 'httpupgrade' }); valid: tcp, ws, wss, tls",
  ],
];

test('a cases file with each mistake: one line a case naming the valid choice, exit 2, nothing started', async () => {
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify(MISTAKES.map(([entry]) => entry)));
  const { code, stdout, stderr } = await runCli(['run', 'cases.json'], { cwd });
  assert.equal(code, 2, stderr);
  assert.equal(stdout, '');
  assert.equal(
    stderr,
    [
      `cipherbench: cases file ${path.join(cwd, 'cases.json')} has ${MISTAKES.length} problems:`,
      ...MISTAKES.map(([, message], i) => `  case ${i}: ${message}`),
      '',
    ].join('\n'),
  );
  assert.deepEqual(readdirSync(cwd), ['cases.json'], 'no report archived');
});

test('a relay given such a chain says so in one line and exits 2 without listening', async () => {
  const relays = [
    ['server', '--listen', '127.0.0.1:0'],
    ['client', '--listen', '127.0.0.1:0', '--server', '127.0.0.1:9', '--forward', '127.0.0.1:9'],
  ];
  const runs = MISTAKES.filter(([entry]) => Array.isArray(entry)).flatMap(([chain, message]) =>
    relays.map(async (role) => {
      const { code, stdout, stderr } = await runCli([
        'relay',
        ...role,
        '--key',
        'k',
        '--presets',
        JSON.stringify(chain),
      ]);
      return { role: role[0], code, stdout, stderr, message };
    }),
  );
  for (const { role, code, stdout, stderr, message } of await Promise.all(runs)) {
    assert.equal(code, 2, `${role}: ${stderr}`);
    assert.equal(stdout, '', role);
    assert.equal(stderr, `cipherbench: --presets is not a valid chain: ${message}\n`, role);
  }
});
