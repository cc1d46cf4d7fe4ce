import assert from 'node:assert/strict';
import { test } from 'node:test';
import { caseIdentity, peerNote } from '../../lib/peers/index.js';

// A row whose figures measure a library rather than its cipher says so:
// Debian's shadowsocks-libev takes aes-128-gcm and aes-192-gcm from mbed
// TLS (block at a time) and aes-256-gcm from libsodium (docs/performance.md).
test('a libev row on mbed TLS says what it measures; the others say nothing', () => {
  const note = (row) => peerNote(caseIdentity(row));
  assert.match(
    note({ impl: 'shadowsocks-libev', method: 'aes-128-gcm' }),
    /^shadowsocks-libev aes-128-gcm measures mbed TLS's GCM/,
  );
  assert.match(note({ impl: 'shadowsocks-libev', method: 'aes-192-gcm' }), /mbed TLS/);
  assert.equal(note({ impl: 'shadowsocks-libev', method: 'aes-256-gcm' }), undefined);
  assert.equal(note({ impl: 'xray', protocol: 'shadowsocks', method: 'aes-128-gcm' }), undefined);
  assert.equal(note([{ name: 'ss-base' }]), undefined);
});
