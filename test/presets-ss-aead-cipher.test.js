import assert from 'node:assert/strict';
import { createCipheriv, randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { createOpen, createSeal } from '../lib/crypto/chacha20-poly1305-original.js';
import { evpBytesToKey } from '../lib/crypto/evp-bytes-to-key.js';
import { deriveSubkey } from '../lib/crypto/hkdf-subkey.js';
import { prepareChain } from '../lib/chain/pipeline.js';
import { validateChain } from '../lib/chain/validate.js';
import { blinksocksRequire, requireBlinksocks } from './support/blinksocks-peer.js';
import { CATALOGUE } from '../lib/presets/index.js';

// The methods and the param blinksocks 3.3.0's ss-aead-cipher has beyond
// SIP004's usual four: chacha20-poly1305, the original construction with an
// 8-byte nonce, and the HKDF info string.

// libsodium's crypto_aead_chacha20poly1305_encrypt_detached (what blinksocks
// calls), key 80..9f, nonce 07000000 40414243, no AD.
const KEY = Buffer.from('808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f', 'hex');
const NONCE = Buffer.from('0700000040414243', 'hex');
const SUNSCREEN = Buffer.from(
  "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
);
const LIBSODIUM = [
  { plaintext: Buffer.alloc(0), ciphertext: '', tag: '3402b54e24089a6e015afdb1b55ccf1a' },
  {
    plaintext: SUNSCREEN,
    ciphertext:
      '541976e65b6e7c9806889f0d144a878117c7774c189db0fc1e36e583080f0bfe56084af8be3816823eee6d55da5d148f8b813697322f287c2e945e514954f9a152d1b24221e5ebd415b0adbbc93f8a7e9cbfec479830eb3e63a76946b7667cd40ea5f54995a228c325898af44983a0a4cb3e',
    tag: '0d11ae867f7002f06495a95c3add6491',
  },
];

const seal = (key, nonce, plaintext) => {
  const cipher = createSeal(key, nonce);
  const ciphertext = cipher.update(plaintext);
  cipher.final();
  return { ciphertext, tag: cipher.getAuthTag() };
};

test("chacha20-poly1305 (8-byte nonce) equals libsodium's, and opens only with its tag", () => {
  for (const { plaintext, ciphertext, tag } of LIBSODIUM) {
    const sealed = seal(KEY, NONCE, plaintext);
    assert.equal(sealed.ciphertext.toString('hex'), ciphertext);
    assert.equal(sealed.tag.toString('hex'), tag);
    const open = createOpen(KEY, NONCE);
    open.setAuthTag(Buffer.from(tag, 'hex'));
    assert.deepEqual(open.update(Buffer.from(ciphertext, 'hex')), plaintext);
    open.final();
    const bad = createOpen(KEY, NONCE);
    const wrongTag = Buffer.from(tag, 'hex');
    wrongTag[randomInt(16)] ^= 1 << randomInt(8);
    bad.setAuthTag(wrongTag);
    bad.update(Buffer.from(ciphertext, 'hex'));
    assert.throws(() => bad.final());
  }
});

// Why node:crypto's 'chacha20-poly1305' under 0x00000000 || nonce is not
// this method: the keystream is the same, the MAC input is not (RFC 8439
// pads to 16 bytes and puts both lengths last).
test('the IETF construction with 4 zero bytes before the nonce gives the same ciphertext and another tag', () => {
  const ietf = createCipheriv('chacha20-poly1305', KEY, Buffer.concat([Buffer.alloc(4), NONCE]), { authTagLength: 16 });
  const ciphertext = ietf.update(SUNSCREEN);
  ietf.final();
  assert.equal(ciphertext.toString('hex'), LIBSODIUM[1].ciphertext);
  assert.notEqual(ietf.getAuthTag().toString('hex'), LIBSODIUM[1].tag);
});

test("blinksocks' libsodium agrees for random keys, nonces and lengths", async (t) => {
  if (!requireBlinksocks(t)) return;
  const sodium = blinksocksRequire()('libsodium-wrappers');
  await sodium.ready;
  for (let i = 0; i < 200; i++) {
    const key = randomBytes(32);
    const nonce = randomBytes(8);
    const plaintext = randomBytes(i < 40 ? i : randomInt(20_000));
    const theirs = sodium.crypto_aead_chacha20poly1305_encrypt_detached(plaintext, null, null, nonce, key);
    const ours = seal(key, nonce, plaintext);
    assert.deepEqual(ours.ciphertext, Buffer.from(theirs.ciphertext));
    assert.deepEqual(ours.tag, Buffer.from(theirs.mac));
  }
});

// What blinksocks' ss-aead-cipher chacha20-poly1305 sent for "hello" with
// the password "cipherbench" (in-process, fixed randomness): salt, sealed
// length, sealed payload.
const BLINKSOCKS_CHACHA = Buffer.from(
  '3f6489aed3f81d42678cb1d6fb20456a8fb4d9fe23486d92b7dc01264b7095ba1605be52903dc9260510a4fc7c30c061ddd6d9dc4656ef7c46b9ef02ad077c132123d6729c52e7',
  'hex',
);

const pipeline = (role, params) => {
  const out = [];
  const stages = prepareChain(CATALOGUE, [{ name: 'ss-aead-cipher', params }], { password: 'cipherbench' })(role, {});
  return {
    encode: stages.encoder((d) => out.push(Buffer.from(d))),
    decode: stages.decoder((d) => out.push(Buffer.from(d))),
    out,
  };
};

test("ss-aead-cipher chacha20-poly1305 reads blinksocks' chunk, and its own, a byte at a time", () => {
  const server = pipeline('server', { method: 'chacha20-poly1305' });
  for (const byte of BLINKSOCKS_CHACHA) server.decode(Buffer.from([byte]));
  assert.equal(Buffer.concat(server.out).toString(), 'hello');

  const client = pipeline('client', { method: 'chacha20-poly1305' });
  const payload = randomBytes(50_000);
  client.encode(payload);
  const wire = Buffer.concat(client.out);
  // salt, then ceil(50000 / 0x3FFF) chunks of 18 + n + 16 bytes.
  assert.equal(wire.length, 32 + payload.length + 4 * 34);
  const reader = pipeline('server', { method: 'chacha20-poly1305' });
  reader.decode(wire);
  assert.deepEqual(Buffer.concat(reader.out), payload);
});

test('info: "ss-subkey" unless given; another info is another key', () => {
  const payload = Buffer.from('payload');
  const opened = (writerParams, readerParams) => {
    const client = pipeline('client', writerParams);
    client.encode(payload);
    const server = pipeline('server', readerParams);
    try {
      server.decode(Buffer.concat(client.out));
    } catch {
      return null;
    }
    return Buffer.concat(server.out).toString();
  };
  assert.equal(opened({ method: 'aes-128-gcm' }, { method: 'aes-128-gcm', info: 'ss-subkey' }), 'payload');
  assert.equal(opened({ method: 'aes-128-gcm', info: 'bs' }, { method: 'aes-128-gcm', info: 'bs' }), 'payload');
  assert.equal(opened({ method: 'aes-128-gcm', info: 'bs' }, { method: 'aes-128-gcm' }), null);
  // The subkey is HKDF-SHA1(EVP_BytesToKey(password), salt, info).
  const client = pipeline('client', { method: 'aes-128-gcm', info: 'bs' });
  client.encode(payload);
  const wire = Buffer.concat(client.out);
  const subkey = deriveSubkey(evpBytesToKey('cipherbench', 16), wire.subarray(0, 16), 16, 'bs');
  const decipher = createCipheriv('aes-128-gcm', subkey, Buffer.alloc(12));
  assert.deepEqual(decipher.update(wire.subarray(16, 18)), Buffer.from([0, payload.length]));
  assert.match(
    validateChain(CATALOGUE, [
      { name: 'ss-base' },
      { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm', info: '' } },
    ])[0].message,
    /string of 1 to 255/,
  );
});

// blinksocks dropped ss-aead-cipher's `info` in 2.6.1: 3.3.0 takes the param
// without a word and always uses "ss-subkey", so only the default talks to it.
test('blinksocks 3.3.0 ignores info: its stream opens with "ss-subkey" whatever info it was given', (t) => {
  if (!requireBlinksocks(t)) return;
  const { default: Preset } = blinksocksRequire()('../lib/presets/ss-aead-cipher.js');
  const theirs = new Preset({ config: { key: 'cipherbench', is_client: true } });
  theirs.onInit({ method: 'aes-128-gcm', info: 'bs-subkey' });
  const wire = theirs.beforeOut({ buffer: Buffer.from('payload') });
  const server = pipeline('server', { method: 'aes-128-gcm' });
  server.decode(wire);
  assert.equal(Buffer.concat(server.out).toString(), 'payload');
});
