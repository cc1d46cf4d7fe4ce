import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { isProtocolError } from '../lib/wire/protocol-error.js';
import { prepareChain } from '../lib/chain/pipeline.js';
import { validateChain } from '../lib/chain/validate.js';
import { blinksocksRequire, requireBlinksocks } from './support/blinksocks-peer.js';
import { CATALOGUE } from '../lib/presets/index.js';

// What blinksocks 3.3.0's aead-random-cipher (aes-256-gcm, default info and
// factor, password "cipherbench") sent for "hello" then "cipherbench", run
// in-process with crypto.randomBytes replaced by a fixed sequence: salt,
// padding and chunk sizes are all in these bytes.
const BLINKSOCKS_WIRE = Buffer.from(
  [
    '0b30557a9fc4e90e33587da2c7ec11365b80a5caef14395e83a8cdf2173c6186abd0f51a3f6489aed3f81d42678cb1d6fb20456a8fb4d9fe23486d92',
    'b7dc01264b7095badf04294e7398bde2072c51769bc0e50a2f54799ec3e80d32577ca1c6eb10355a7fa4c9ee13385d82a7ccf1163b6085aacff4193e',
    '6388add2f71c41668bb0d5fa1f44698eb3d8fd22476c91b6db00254a6f94b9de03284d7297bce1062b50759abfe4092e53789dc2e70c31567ba0c5ea',
    '0f34597ea3c8ed12375c81a6cbf0153a5f84a9cef3183d6287acd1f61b40658aafd4f91e43688db2d7fc21466b90b5daff24496e93b8dd02274c7196',
    'bbe0052a4f7499bee3082d52779cc1e60b30557a9fc4e90e33587da2c7ec11365b80a5caef14395e83a8cdf2173c6186abd0f51a3f6489aed3f81d42',
    '678cb1d6fb20456a8fb4d9fe23486d92b7dc01264b7095badf04294e7398bde2072c51769bc0e50a2f54799ec3e80d32577ca1c6eb10355a7fa4c9ee',
    '13385d82a7ccf1163b6085aacff4193e6388add2f71c41668bb0d5fa1f44698eb3d8fd22476c91b6db00254a6f94b9de03284d7297bce1062b50759a',
    'bfe4092e53789dc2e70c31567ba0c5ea0f34597ea3c8ed12375c81a6cbf0153a5f84a9cef3183d6287ac137e77688bf8844d7084aeff9be8a34ea1ee',
    '0cab48b196aa7dd5f88d7e37b0c95c5bcc48db5fc0d1f61b40658aafd4f91e43688db2d7fc21466b90b5daff24496e93b8dd02274c7196bbe0052a4f',
    '7499bee3082d52779cc1e60b30557a9fc4e90e33587da2c7ec11365b80a5caef14395e83a8cdf2173c6186abd0f51a3f6489aed3f81d42678cb1d6fb',
    '20456a8fb4d9fe23486d92b7dc01264b7095badf04294e7398bde2072c51769bc0e50a2f54799ec3e80d32577ca1c6eb10355a7fa4c9ee13385d82a7',
    'ccf1163b6085aacff4193e6388add2f71c41668bb0d5fa1f44698eb3d8fd22476c91b6db00254a6f94b9de03284d7297bce1062b50759abfe4092e53',
    '789dc2e70c31567ba0c5ea0f34597ea3c8ed12375c81a6cbf0153a5f84a9cef3183d6287acd1f61b40658aafd4f91e43688db2d7fc21466b90b5daff',
    '24496e93b8dd02274c7196bbe0052a4f7499bee3082d52779cc1e60b30557a9fc4e90e33587da2c7ec11365b80a5caef14395e83a8cdf2173c6186ab',
    'd0f51a3f6489aed3f81d42678cb1d6fb20456a8fb4d9fe23486d92b7dc01264b7095badf04294e7398bde2072c51769bc0e50a2f54799ec3e80d3257',
    '7ca1c6087b1f6f981ebd8bf1c3ac8d7871cfc041ab09e3c40a4293deea7c430ba25d341b8ba7e30a0f0efe6fa071e420',
  ].join(''),
  'hex',
);

const chain = (params) => [{ name: 'aead-random-cipher', params: { method: 'aes-256-gcm', ...params } }];

function pipeline(role, params, { password = 'cipherbench', salts = [], accept = true } = {}) {
  const out = [];
  const filter = { add: (salt) => (salts.push(Buffer.from(salt)), accept) };
  const stages = prepareChain(CATALOGUE, chain(params), { password, salts: filter })(role, {});
  const sink = (data) => out.push(Buffer.from(data));
  return { encode: stages.encoder(sink), decode: stages.decoder(sink), out, salts };
}

// The format as blinksocks' source gives it, with node:crypto alone: one
// cipher object per seal, nonce i for the i-th seal, the padding length
// from the tag of sealing the nonce under the length's own nonce.
function referenceOpen(
  wire,
  { password = 'cipherbench', method = 'aes-256-gcm', info = 'bs-subkey', factor = 2 } = {},
) {
  const size = Number(method.slice(4, 7)) / 8;
  const key = Buffer.from(hkdfSync('sha1', Buffer.from(password), wire.subarray(0, size), info, size));
  const nonce = Buffer.alloc(12);
  const next = () => {
    const current = Buffer.from(nonce);
    for (let i = 0; i < 12 && ++nonce[i] === 256; i++) nonce[i] = 0;
    return current;
  };
  const open = (sealed) => {
    const decipher = createDecipheriv(method, key, next());
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  };
  const chunks = [];
  const paddings = [];
  let at = size;
  while (at < wire.length) {
    const padder = createCipheriv(method, key, nonce);
    padder.update(nonce);
    padder.final();
    const padding = padder.getAuthTag()[0] * factor;
    paddings.push(padding);
    at += padding;
    const length = open(wire.subarray(at, at + 18)).readUInt16BE(0);
    at += 18;
    chunks.push(open(wire.subarray(at, at + length + 16)));
    at += length + 16;
  }
  assert.equal(at, wire.length, 'the wire ends at a chunk boundary');
  return { chunks, paddings };
}

test("blinksocks' stream, read by the reference and by ours (whole and a byte at a time)", () => {
  const { chunks, paddings } = referenceOpen(BLINKSOCKS_WIRE);
  assert.deepEqual(chunks.map(String), ['hello', 'cipherbench']);
  assert.ok(
    paddings.every((p) => p % 2 === 0 && p <= 510),
    String(paddings),
  );
  for (const step of [BLINKSOCKS_WIRE.length, 1, 33]) {
    const server = pipeline('server', {});
    for (let i = 0; i < BLINKSOCKS_WIRE.length; i += step) server.decode(BLINKSOCKS_WIRE.subarray(i, i + step));
    assert.equal(Buffer.concat(server.out).toString(), 'hellocipherbench');
    assert.deepEqual(server.salts, [BLINKSOCKS_WIRE.subarray(0, 32)], 'the received salt goes to the replay filter');
  }
});

test("our stream, read by the reference, for every method, info and factor; chunk sizes vary as blinksocks'", () => {
  for (const method of ['aes-128-gcm', 'aes-192-gcm', 'aes-256-gcm']) {
    for (const params of [{}, { info: 'other', factor: 1 }, { factor: 10 }]) {
      const client = pipeline('client', { method, ...params });
      const payload = randomBytes(200_000);
      client.encode(Buffer.alloc(0));
      client.encode(payload.subarray(0, 3));
      client.encode(payload.subarray(3));
      const wire = Buffer.concat(client.out);
      const size = Number(method.slice(4, 7)) / 8;
      assert.deepEqual(client.salts, [wire.subarray(0, size)], 'the sent salt goes to the replay filter');
      const { chunks, paddings } = referenceOpen(wire, { method, ...params });
      assert.deepEqual(Buffer.concat(chunks), payload);
      const factor = params.factor ?? 2;
      assert.ok(paddings.every((p) => p % factor === 0 && p <= 255 * factor));
      assert.ok(new Set(paddings).size > 3, 'padding lengths vary');
      const sizes = chunks.slice(1, -1).map((c) => c.length);
      assert.ok(
        sizes.every((n) => n >= 0x800 && n <= 0x3fff),
        String(sizes),
      );
      assert.ok(new Set(sizes).size > 2, 'chunk sizes vary');
    }
  }
});

test('a replayed salt, a flipped bit, a long length and garbage are protocol errors', () => {
  assert.throws(() => pipeline('server', {}, { accept: false }).decode(BLINKSOCKS_WIRE), /repeated salt/);
  for (let i = 0; i < 200; i++) {
    const wire = Buffer.from(BLINKSOCKS_WIRE);
    wire[32 + randomInt(wire.length - 32)] ^= 1 << randomInt(8);
    const server = pipeline('server', {});
    // A flip inside padding changes nothing; anywhere else it must be refused.
    try {
      server.decode(wire);
    } catch (error) {
      assert.ok(isProtocolError(error), error.stack);
    }
  }
  const flippedTag = Buffer.from(BLINKSOCKS_WIRE);
  flippedTag[flippedTag.length - 1] ^= 1;
  assert.throws(() => pipeline('server', {}).decode(flippedTag), /tag mismatch/);
  for (let i = 0; i < 200; i++) {
    const server = pipeline('server', { factor: 1 + (i % 10) });
    try {
      server.decode(randomBytes(randomInt(1, 3000)));
    } catch (error) {
      assert.ok(isProtocolError(error), error.stack);
    }
  }
});

test('a length over 0x3FFF is refused before its payload is waited for', () => {
  // Seal 0x4000 as the first length, after the padding the key asks for.
  const salt = randomBytes(32);
  const key = Buffer.from(hkdfSync('sha1', Buffer.from('cipherbench'), salt, 'bs-subkey', 32));
  const nonce = Buffer.alloc(12);
  const padder = createCipheriv('aes-256-gcm', key, nonce);
  padder.update(nonce);
  padder.final();
  const padding = randomBytes(padder.getAuthTag()[0] * 2);
  const sealer = createCipheriv('aes-256-gcm', key, nonce);
  const length = sealer.update(Buffer.from([0x40, 0x00]));
  sealer.final();
  const wire = Buffer.concat([salt, padding, length, sealer.getAuthTag()]);
  assert.throws(() => pipeline('server', {}).decode(wire), /chunk length 16384 exceeds 0x3FFF/);
});

test('params: method required, info a non-empty string, factor a whole number 1 to 10', () => {
  const problems = (params) =>
    validateChain(CATALOGUE, [{ name: 'ss-base' }, { name: 'aead-random-cipher', params }]).map((p) => p.message);
  assert.deepEqual(problems({ method: 'aes-128-gcm', info: 'x', factor: 10 }), []);
  assert.match(problems({})[0], /missing; valid: aes-128-gcm, aes-192-gcm, aes-256-gcm/);
  for (const factor of [0, 11, 1.5, '2'])
    assert.match(problems({ method: 'aes-128-gcm', factor })[0], /whole number from 1 to 10/);
  assert.match(problems({ method: 'aes-128-gcm', info: '' })[0], /string of 1 to 255/);
});

test("blinksocks' aead-random-cipher, in-process, reads our stream", (t) => {
  if (!requireBlinksocks(t)) return;
  const { default: Preset } = blinksocksRequire()('../lib/presets/aead-random-cipher.js');
  for (const params of [{ method: 'aes-256-gcm' }, { method: 'aes-128-gcm', info: 'x', factor: 7 }]) {
    const client = pipeline('client', params);
    const payload = randomBytes(100_000);
    client.encode(payload);
    const theirs = new Preset({ config: { key: 'cipherbench', is_client: false } });
    theirs.onInit(params);
    const got = [];
    theirs.beforeIn({
      buffer: Buffer.concat(client.out),
      next: (data) => got.push(data),
      fail: (message) => assert.fail(message),
    });
    assert.deepEqual(Buffer.concat(got), payload);
  }
});

// blinksocks design flaw, followed for compatibility: the seal that sets the
// padding length and the length record share a (key, nonce), so their
// keystreams are equal. Shown on blinksocks' own bytes: the sealed nonce XOR
// the sealed length equals the nonce XOR the length ("hello" is 5 bytes).
test("blinksocks flaw: the padding seal reuses the length record's nonce", () => {
  const key = Buffer.from(
    hkdfSync('sha1', Buffer.from('cipherbench'), BLINKSOCKS_WIRE.subarray(0, 32), 'bs-subkey', 32),
  );
  const nonce = Buffer.alloc(12);
  const padder = createCipheriv('aes-256-gcm', key, nonce);
  const sealedNonce = padder.update(nonce);
  padder.final();
  const lengthAt = 32 + padder.getAuthTag()[0] * 2;
  const sealedLength = BLINKSOCKS_WIRE.subarray(lengthAt, lengthAt + 2);
  const keystream = [sealedNonce[0] ^ nonce[0], sealedNonce[1] ^ nonce[1]];
  assert.deepEqual([sealedLength[0] ^ keystream[0], sealedLength[1] ^ keystream[1]], [0, 5]);
});
