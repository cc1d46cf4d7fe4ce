import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chainLabel } from '../../lib/chain/label.js';

test('a chain reads as its presets joined by +, each with its param values in brackets', () => {
  assert.equal(
    chainLabel([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }]),
    'ss-base + ss-aead-cipher(aes-256-gcm)',
  );
  assert.equal(
    chainLabel([{ name: 'ss-2022', params: { method: '2022-blake3-aes-128-gcm' } }]),
    'ss-2022(2022-blake3-aes-128-gcm)',
  );
});

test('values that are not strings are written as JSON; empty params read as none', () => {
  assert.equal(
    chainLabel([{ name: 'aead-random-cipher', params: { method: 'aes-128-gcm', factor: 3 } }]),
    'aead-random-cipher(aes-128-gcm, 3)',
  );
  assert.equal(chainLabel([{ name: 'obfs-http', params: { flag: true, list: ['a'] } }]), 'obfs-http(true, ["a"])');
  assert.equal(chainLabel([{ name: 'ss-base', params: {} }]), 'ss-base');
});
