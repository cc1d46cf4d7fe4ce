import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { evpBytesToKey } from '../../lib/crypto/evp-bytes-to-key.js';
import { hchacha20 } from '../../lib/crypto/hchacha20.js';
import { deriveSubkey } from '../../lib/crypto/hkdf-subkey.js';
import ssAeadCipher from '../../lib/presets/ss-aead-cipher.js';

const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

test('EVP_BytesToKey(MD5) equals OpenSSL: `openssl enc -aes-256-cfb -k password -nosalt -P -md md5`', () => {
  // OpenSSL printed key=5F4D...FE08 and iv=B7B4...9E94: one 48-byte stream.
  const expected = hex(
    '5F4DCC3B5AA765D61D8327DEB882CF99 2B95990A9151374ABD8FF8C5A7A0FE08 B7B4372CDFBCB3D16A2631B59B509E94',
  );
  assert.deepEqual(evpBytesToKey('password', 48), expected);
  assert.deepEqual(evpBytesToKey('password', 32), expected.subarray(0, 32));
  // `openssl enc -aes-128-cfb -k cipherbench -nosalt -P -md md5`: key=FA43E2BFD82317ED2BCA0446B0D6A7B2
  assert.deepEqual(evpBytesToKey('cipherbench', 16), hex('FA43E2BFD82317ED2BCA0446B0D6A7B2'));
});

// RFC 5869 written out with HMAC, independent of node's hkdfSync.
function rfc5869(hash, ikm, salt, info, length) {
  const prk = createHmac(hash, salt).update(ikm).digest();
  const blocks = [];
  let previous = Buffer.alloc(0);
  for (let i = 1; Buffer.concat(blocks).length < length; i++) {
    previous = createHmac(hash, prk)
      .update(previous)
      .update(info)
      .update(Buffer.from([i]))
      .digest();
    blocks.push(previous);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

test('the RFC 5869 reference above passes RFC 5869 test case 4 (HKDF-SHA1)', () => {
  const okm = rfc5869('sha1', hex('0b'.repeat(11)), hex('000102030405060708090a0b0c'), hex('f0f1f2f3f4f5f6f7f8f9'), 42);
  assert.deepEqual(okm, hex('085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2c22e422478d305f3f896'));
});

test('ss-subkey is HKDF-SHA1(key, salt, "ss-subkey"), checked by the reference and by Python cryptography 48', () => {
  const key = evpBytesToKey('password', 32);
  const salt = Buffer.from([...Array(32).keys()]);
  const subkey = deriveSubkey(key, salt);
  assert.deepEqual(subkey, rfc5869('sha1', key, salt, Buffer.from('ss-subkey'), 32));
  // HKDF(hashes.SHA1(), 32, salt, b'ss-subkey').derive(key) in Python cryptography 48.0.0
  assert.deepEqual(subkey, hex('ee187aed3f87574907a39db98606f60a526114831288097cac66054b33a9464f'));
  assert.equal(deriveSubkey(evpBytesToKey('password', 16), salt.subarray(0, 16)).length, 16);
});

test('HChaCha20 matches draft-irtf-cfrg-xchacha-03 section 2.2.1', () => {
  const key = Buffer.from([...Array(32).keys()]);
  const nonce = hex('000000090000004a0000000031415927');
  assert.deepEqual(
    hchacha20(key, nonce),
    hex('82413b42 27b27bfe d30e4250 8a877d73 a0f9e4d5 8a74a853 c12ec413 26d3ecdc'),
  );
});

test('an aes-256-gcm stream sealed by Python cryptography decodes to its plaintext', () => {
  // salt 00..1f, password "password"; chunk 1: length 5 under nonce 0,
  // chunk 2: "hello" under nonce 1, both sealed by cryptography's AESGCM.
  const wire = Buffer.concat([
    Buffer.from([...Array(32).keys()]),
    hex('7ea089e1d8874f484867a34f5b648078a737'),
    hex('9d45b3194573671c53431294750d0362127bcf8679'),
  ]);
  const decode = (chunks) => {
    const out = [];
    const stage = ssAeadCipher.prepare(
      { method: 'aes-256-gcm' },
      { password: 'password' },
    )({ salts: { add: () => true } }).serverDecode;
    for (const chunk of chunks) stage(chunk, (data) => out.push(data));
    return Buffer.concat(out).toString();
  };
  assert.equal(decode([wire]), 'hello');
  assert.equal(decode([...wire].map((byte) => Buffer.from([byte]))), 'hello', 'one byte per read');
  const flipped = Buffer.from(wire);
  flipped[flipped.length - 1] ^= 1;
  assert.throws(() => decode([flipped]), { code: 'ERR_CIPHERBENCH_PROTOCOL' });
});
