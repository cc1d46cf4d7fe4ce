import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateChain } from '../../lib/chain/validate.js';
import { CATALOGUE } from '../../lib/presets/index.js';

const base = { name: 'ss-base' };
const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const ctr = { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } };
const messages = (chain) => validateChain(CATALOGUE, chain).map(({ field, message }) => `${field}: ${message}`);

test('a chain names one address preset, first', () => {
  assert.deepEqual(messages([base, gcm]), []);
  assert.match(messages([gcm])[0], /^presets: no address preset/);
  assert.match(messages([gcm, base])[0], /^presets\[0\]\.name: ss-base carries the target address and must come first/);
  assert.match(messages([base, base, gcm])[0], /^presets\[1\]\.name: a second address preset/);
});

test('a chain encrypts once', () => {
  assert.match(
    messages([base, gcm, ctr])[0],
    /^presets\[2\]\.name: a second cipher preset \(ss-stream-cipher after ss-aead-cipher\)/,
  );
});

test('names and params are looked up as own properties only', () => {
  for (const name of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
    assert.match(messages([{ name }])[0], /unknown preset/, name);
  }
  assert.match(
    messages([base, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm', constructor: 1 } }])[0],
    /takes no parameter "constructor"/,
  );
  assert.match(
    messages([base, { name: 'ss-aead-cipher', params: { method: 'toString' } }])[0],
    /unknown method "toString"/,
  );
});
