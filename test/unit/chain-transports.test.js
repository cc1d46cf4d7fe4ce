import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chainTransport, prepareTransport } from '../../lib/chain/transport.js';
import { validateChain } from '../../lib/chain/validate.js';
import { duplexPair, readToEnd } from '../support/duplex-pair.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// Transports stack: ws or httpupgrade inside tls, the last preset nearest
// the wire; a misplaced one is one line naming the order that is valid.
const vless = { name: 'vless', params: { id: 'a3482e88-686a-4a58-8126-99c9df64b7bf' } };
const ws = { name: 'ws' };
const tls = { name: 'tls', params: { insecure: true } };
const messages = (chain) => validateChain(CATALOGUE, chain).map(({ field, message }) => `${field}: ${message}`);

test('ws and httpupgrade come after every other preset, alone or inside tls', () => {
  for (const chain of [
    [vless, ws],
    [vless, ws, tls],
    [vless, { name: 'httpupgrade' }],
    [vless, { name: 'httpupgrade' }, tls],
    [{ name: 'trojan' }, ws, tls],
    [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }, ws],
  ]) {
    assert.deepEqual(messages(chain), [], chain.map(({ name }) => name).join(', '));
  }
});

test('a misplaced transport is one line naming the valid order', () => {
  assert.deepEqual(messages([vless, tls, ws]), [
    'presets[1].name: tls carries the whole chain and must be the last preset; in order: vless, ws, tls',
  ]);
  assert.deepEqual(messages([vless, ws, { name: 'trojan' }]).slice(-1), [
    'presets[1].name: ws carries the chain and comes after every other preset, where only tls may follow it; in order: vless, trojan, ws',
  ]);
  assert.deepEqual(messages([vless, ws, { name: 'httpupgrade' }]), [
    'presets[2].name: ws and httpupgrade cannot carry each other: a chain takes one of them',
  ]);
  assert.deepEqual(messages([vless, ws, tls, ws]), ['presets[3].name: a second ws: a chain is carried by one']);
  assert.match(messages([vless, { name: 'wss' }])[0], /unknown preset "wss" \(did you mean "ws"\?\)/);
  assert.match(messages([vless, { name: 'ws', params: { path: 'cipherbench' } }])[0], /params\.path: must be a path/);
  assert.match(messages([vless, { name: 'ws', params: { pth: '/x' } }])[0], /did you mean "path"/);
  for (const message of messages([vless, tls, ws])) assert.doesNotMatch(message, /\n/);
});

test('[vless, ws, tls] is TLS on the wire with WebSocket inside it, and says so in one line', async () => {
  const chain = [vless, ws, tls];
  assert.equal(chainTransport(CATALOGUE, chain), 'ws + tls');
  const heard = [];
  // Two relays, each with its own: what one hears is its own connection's.
  const { client, server, wire } = duplexPair();
  const ours = prepareTransport(CATALOGUE, chain, { note: (line) => heard.push(line) }).connect(client);
  const theirs = prepareTransport(CATALOGUE, chain).accept(server);
  const up = readToEnd(theirs);
  ours.end(Buffer.from('through both layers'));
  assert.equal((await up).toString(), 'through both layers');
  const down = readToEnd(ours);
  theirs.end(Buffer.from('and back'));
  assert.equal((await down).toString(), 'and back');
  const sent = Buffer.concat(wire.toServer);
  assert.equal(sent[0], 0x16, 'a TLS handshake record first on the wire');
  assert.equal(sent.indexOf('GET /cipherbench'), -1, 'the upgrade request only inside TLS');
  assert.equal(heard.length, 1, heard.join(' | '));
  assert.match(heard[0], /^ws \/cipherbench, Host localhost over TLSv1\.3 \S+, certificate not verified/);
});
