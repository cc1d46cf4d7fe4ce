import assert from 'node:assert/strict';
import { createCipheriv, createHash, hkdfSync, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { blake3 } from '@noble/hashes/blake3';
import { AEAD_METHODS } from '../../lib/crypto/aead-methods.js';
import { evpBytesToKey } from '../../lib/crypto/evp-bytes-to-key.js';
import { STREAM_METHODS } from '../../lib/crypto/stream-methods.js';
import { chainHasUdp, prepareUdpChain } from '../../lib/chain/udp-form.js';
import { createPacketWindow, WINDOW } from '../../lib/presets/ss-2022/packet-window.js';
import { encodeRequestBody, encodeResponseBody, packetCipher } from '../../lib/presets/ss-2022/udp-packet.js';
import { encodeAddressFrame } from '../../lib/presets/udp/address-frame.js';
import { isProtocolError } from '../../lib/wire/protocol-error.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// Known answers for every UDP packet format, each pinned by the SHA-256 of
// one packet made from fixed keys, salts, IVs, ids and times; for one method
// of each format the packet is also built here from node:crypto and BLAKE3
// alone, as the spec reads, so a pinned hash cannot pin a wrong format.
// (shadowsocks-libev and shadowsocks-rust read and write the same packets:
// relay-udp-interop.test.js, relay-udp-interop-rust.test.js.)
const TARGET = { host: '127.0.0.1', port: 5201 };
const PAYLOAD = Buffer.from('cipherbench udp');
const FRAME = encodeAddressFrame(TARGET, PAYLOAD);
const PASSWORD = 'udp-kat';
const NOW = 1764000000;
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const aeadChain = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const streamChain = (method) => [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method } }];
const packetOf = (chain, password = PASSWORD) => prepareUdpChain(CATALOGUE, chain, { password });
const refusedAsProtocol = (fn, what) => assert.throws(fn, (error) => isProtocolError(error), what);

const SIP004 = {
  'aes-128-gcm': 'efbeb5e7166b4320c58d1e3c1644e1000602182c3188a4640c1fec071f1f2132',
  'aes-192-gcm': 'e95b3ab114f5a4653f82fc507148605a6f0a4e26ce8f01e8f74f04ff458c1edc',
  'aes-256-gcm': 'a574b80f6f37e6aa06acd2b6911e24bfeb1c6e8f2c21ed988069c344a4d100e3',
  'chacha20-poly1305': '8d49712e119ac2f243cc722e7ce31c2c96db815ad5d9d5b345b3addbc8e2e8c6',
  'chacha20-ietf-poly1305': '580cbc2b72c6d1b4f8e0590fe24f709b0085c95b1295ab2fbdaea6fb54f778af',
  'xchacha20-ietf-poly1305': 'e311c4c2ec49e2d41155cbf2c9fca0f57f8943591cfc139470e69feb9b7c3c8b',
};
const STREAM = {
  'aes-128-ctr': 'f1dacf8bb774dd5f0f19d5bf0d6441d05c28b66ccb0939c6ad4a30b9985472b7',
  'aes-192-ctr': '0194762ea14c4f1963d7b59499e92272dbf8d78c7c80e4209919f49061c444c9',
  'aes-256-ctr': '2ea2bd8f096295c0bfc54fd7a2286381c5f0fd5e0ec5840f8bd0a14c0d60ca9a',
  'aes-128-cfb': '11ef2c4d90e0a00ddbc7b8acdc22d0067941e4058fe511820b639ec23984889a',
  'aes-192-cfb': '5307ce81bcf871ad30b9aebc9e151f6df12c027855e839d1f6c7647931260de9',
  'aes-256-cfb': '3320e09951cbfe8c4f4b835a79285c38012e11e973a9f8bb1a8a42dd0598fe45',
  'camellia-128-cfb': '3746ebe22f3d3a4e06faf7ef35f66a4c902f7a6ae50d75c6a70a4be9db1c0c17',
  'camellia-192-cfb': 'e95345b3b456444e875ebcba9b86eed91c5cf6860e116c33f871c9f07d171a65',
  'camellia-256-cfb': '9c8dfdb8cdfb2c83084f41af2ef8695a683fb997b9ab5d15d2f3bad8f6ec247e',
  'chacha20-ietf': 'ec3aa2fa3ddd4f2a888aa45f1bc9c8d2469138bfb48c7cc9622ddd4504a7479d',
  none: 'e767e114ef8dce918030ef4bf8c3e3310a56c1bfbb6040ae6ee35ac80b3e91fd',
};
const SIP022 = {
  '2022-blake3-aes-128-gcm': {
    keyLength: 16,
    request: 'ed9a1c32fc041c2dab15a1cdaaceff4e241369c2a978491f6054c1757a72878c',
    response: '60b2fc0c16a484ae462663bac874cd84888212f0e32d37a7f4134da28d1407ce',
  },
  '2022-blake3-aes-256-gcm': {
    keyLength: 32,
    request: 'b5a8ca7e5dbdfd28a70ec77b8991ba87a544e0aa38ced72f48f7905934d4cef9',
    response: '93bbcc624d8aeffe13b72d03246812bf2cf7263e873bb15a7c71982d1855fc40',
  },
  '2022-blake3-chacha20-poly1305': {
    keyLength: 32,
    request: '766461fc1e33cbcaa8ff29330f27d01f8f31f9e9619a8aa0ce40ae38d4b3b790',
    response: '32630403f29ea6256252b8994241db179852b6cbccdc0d07d3a8b4d7c53a105b',
  },
};
const CLIENT_SESSION = Buffer.from('0102030405060708', 'hex');
const SERVER_SESSION = Buffer.from('a1a2a3a4a5a6a7a8', 'hex');
const XNONCE = Buffer.alloc(24, 0x44);

// Through the preset's own udp() form, as the relay builds it.
const packetForm = (name, params, password = PASSWORD) => CATALOGUE.named(name).udp(params, { password }).packet;

test('SIP004 UDP: salt | AEAD(HKDF-SHA1 subkey, nonce 0, address | payload) | tag, for every AEAD method', () => {
  for (const [method, expected] of Object.entries(SIP004)) {
    const { saltLength } = AEAD_METHODS[method];
    const packet = packetForm('ss-aead-cipher', { method }).seal(FRAME, Buffer.alloc(saltLength, 0x11));
    assert.equal(sha256(packet), expected, method);
    const { address, payload } = packetOf(aeadChain(method)).server().decode(packet);
    assert.deepEqual({ address, payload }, { address: TARGET, payload: PAYLOAD });
  }
  // aes-256-gcm from node:crypto alone.
  const salt = Buffer.alloc(32, 0x11);
  const subkey = Buffer.from(hkdfSync('sha1', evpBytesToKey(PASSWORD, 32), salt, 'ss-subkey', 32));
  const gcm = createCipheriv('aes-256-gcm', subkey, Buffer.alloc(12));
  const independent = Buffer.concat([salt, gcm.update(FRAME), gcm.final(), gcm.getAuthTag()]);
  assert.equal(sha256(independent), SIP004['aes-256-gcm']);
});

// rc4-md5, rc4-md5-6 and bf-cfb need the legacy provider, which this
// process does not load; their datagrams are the same code with another
// cipher object.
test('stream-cipher UDP: IV | cipher(address | payload), a fresh cipher per datagram, for every method', () => {
  for (const [method, expected] of Object.entries(STREAM)) {
    const packet = packetForm('ss-stream-cipher', { method }).seal(
      FRAME,
      Buffer.alloc(STREAM_METHODS[method].ivLength, 0x22),
    );
    assert.equal(sha256(packet), expected, method);
  }
  const iv = Buffer.alloc(16, 0x22);
  const ctr = createCipheriv('aes-256-ctr', evpBytesToKey(PASSWORD, 32), iv);
  assert.equal(sha256(Buffer.concat([iv, ctr.update(FRAME)])), STREAM['aes-256-ctr']);
});

test('SIP022 UDP: request and response packets of every 2022 method', () => {
  for (const [method, { keyLength, request, response }] of Object.entries(SIP022)) {
    const cipher = packetCipher(method, Buffer.alloc(keyLength, 0x33));
    const sealedRequest = cipher.seal(CLIENT_SESSION, 7, encodeRequestBody(TARGET, PAYLOAD, NOW), XNONCE);
    const sealedResponse = cipher.seal(
      SERVER_SESSION,
      9,
      encodeResponseBody(CLIENT_SESSION, TARGET, PAYLOAD, NOW),
      XNONCE,
    );
    assert.equal(sha256(sealedRequest), request, `${method} request`);
    assert.equal(sha256(sealedResponse), response, `${method} response`);
    const opened = cipher.open(sealedRequest);
    assert.deepEqual([opened.sessionId, opened.packetId], [CLIENT_SESSION, 7]);
  }
  // 2022-blake3-aes-256-gcm from node:crypto and BLAKE3 alone: the ids as
  // one AES-256-ECB block under the PSK, the body under
  // BLAKE3-derive_key("shadowsocks 2022 session subkey", PSK | session id)
  // with ids[4..16] as nonce.
  const psk = Buffer.alloc(32, 0x33);
  const ids = Buffer.concat([CLIENT_SESSION, Buffer.from('0000000000000007', 'hex')]);
  const ecb = createCipheriv('aes-256-ecb', psk, null).setAutoPadding(false);
  const subkey = blake3(Buffer.concat([psk, CLIENT_SESSION]), {
    context: 'shadowsocks 2022 session subkey',
    dkLen: 32,
  });
  // type 0 | time | padding length 0 | address | payload
  const body = Buffer.concat([Buffer.from([0]), Buffer.from('00000000692481000000', 'hex'), FRAME]);
  assert.equal(body.readBigUInt64BE(1), BigInt(NOW));
  const gcm = createCipheriv('aes-256-gcm', subkey, ids.subarray(4));
  const independent = Buffer.concat([ecb.update(ids), ecb.final(), gcm.update(body), gcm.final(), gcm.getAuthTag()]);
  assert.equal(sha256(independent), SIP022['2022-blake3-aes-256-gcm'].request);
});

const CHAINS = [
  ...Object.keys(SIP004).map((method) => ({ label: method, chain: aeadChain(method), password: PASSWORD })),
  ...Object.keys(STREAM).map((method) => ({ label: method, chain: streamChain(method), password: PASSWORD })),
  ...Object.keys(SIP022).map((method) => ({
    label: method,
    chain: [{ name: 'ss-2022', params: { method } }],
    password: Buffer.alloc(SIP022[method].keyLength, 0x55).toString('base64'),
  })),
];

test("every UDP chain carries a datagram there and back, and names the reply's source", () => {
  for (const { label, chain, password } of CHAINS) {
    const form = packetOf(chain, password);
    const client = form.client();
    const server = form.server();
    const opened = server.decode(client.encode(TARGET, PAYLOAD));
    assert.deepEqual([opened.address, opened.payload], [TARGET, PAYLOAD], label);
    server.hold(opened.session);
    const source = { host: '::1', port: 53 };
    const back = client.decode(opened.session.encode(source, Buffer.from('reply')));
    assert.deepEqual([back.address, back.payload.toString()], [source, 'reply'], label);
    // Empty datagrams are datagrams too (SIP022 pads them).
    assert.equal(server.decode(client.encode(TARGET, Buffer.alloc(0))).payload.length, 0, label);
  }
});

test('an authenticated datagram with any byte changed, cut short, or under another key is refused as a protocol error', () => {
  for (const { label, chain, password } of CHAINS.filter(({ chain }) => chain.at(-1).name !== 'ss-stream-cipher')) {
    const form = packetOf(chain, password);
    const packet = form.client().encode(TARGET, PAYLOAD);
    for (let i = 0; i < 20; i++) {
      const changed = Buffer.from(packet);
      changed[randomInt(changed.length)] ^= 1 << randomInt(8);
      refusedAsProtocol(() => form.server().decode(changed), `${label}: a flipped bit`);
    }
    for (const length of [0, 1, 15, 16, 31, packet.length - 1]) {
      refusedAsProtocol(() => form.server().decode(packet.subarray(0, length)), `${label}: cut to ${length}`);
    }
    const other =
      chain[0].name === 'ss-2022'
        ? Buffer.alloc(SIP022[chain[0].params.method].keyLength, 0x66).toString('base64')
        : 'another key';
    refusedAsProtocol(() => packetOf(chain, other).server().decode(packet), `${label}: another key`);
    // SIP022 types its packets, so a client takes no request for an answer
    // (SIP004's look alike both ways, as in every implementation).
    if (chain[0].name === 'ss-2022')
      refusedAsProtocol(() => form.client().decode(packet), `${label}: a request as a reply`);
  }
});

test('random datagrams never throw anything but a protocol error, for every chain', () => {
  for (const { label, chain, password } of CHAINS) {
    const server = packetOf(chain, password).server();
    for (let i = 0; i < 200; i++) {
      const garbage = Buffer.from(Array.from({ length: randomInt(0, 300) }, () => randomInt(256)));
      try {
        server.decode(garbage);
      } catch (error) {
        assert.ok(isProtocolError(error), `${label}: ${error.stack}`);
      }
    }
  }
});

test('SIP022: the packet window accepts each id once, reordered within the window, and refuses replays and ids too old', () => {
  const window = createPacketWindow();
  assert.ok(window.accept(0));
  assert.ok(!window.accept(0));
  assert.ok(window.accept(5));
  assert.ok(window.accept(3), 'reordered within the window');
  assert.ok(!window.accept(3));
  assert.ok(window.accept(WINDOW + 100));
  assert.ok(!window.accept(50), 'too old');
  assert.ok(window.accept(WINDOW + 99));
  assert.ok(window.accept(2 ** 40), 'a jump clears the ring');
  assert.ok(window.accept(2 ** 40 - 1));
  assert.ok(!window.accept(2 ** 40));
  const shuffled = createPacketWindow();
  const ids = Array.from({ length: 5000 }, (_, i) => i);
  for (let i = 0; i < ids.length; i++) {
    const j = Math.min(ids.length - 1, i + randomInt(64));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  assert.ok(
    ids.every((id) => shuffled.accept(id)),
    'every id of a locally shuffled run',
  );
  assert.ok(
    ids.every((id) => !shuffled.accept(id)),
    'and none twice',
  );
});

test('SIP022: a replayed datagram is refused by its session, from the same sender or any other', () => {
  for (const method of Object.keys(SIP022)) {
    const form = packetOf(
      [{ name: 'ss-2022', params: { method } }],
      Buffer.alloc(SIP022[method].keyLength, 0x55).toString('base64'),
    );
    const client = form.client();
    const server = form.server();
    const first = client.encode(TARGET, PAYLOAD);
    const { session } = server.decode(first);
    server.hold(session);
    const replay = (current) =>
      assert.throws(
        () => server.decode(first, current),
        (error) => isProtocolError(error) && error.replay === true,
      );
    replay(session);
    replay(undefined);
    const second = server.decode(client.encode(TARGET, PAYLOAD));
    assert.equal(second.session, session, 'a live session is found by its id');
    // A reply replayed to the client is refused too.
    const answer = session.encode(TARGET, PAYLOAD);
    client.decode(answer);
    assert.throws(
      () => client.decode(answer),
      (error) => error.replay === true,
    );
    // Another client's session is another session, answered from another id.
    const other = server.decode(form.client().encode(TARGET, PAYLOAD));
    assert.notEqual(other.session, session);
    refusedAsProtocol(() => client.decode(other.session.encode(TARGET, PAYLOAD)), 'a reply to another client session');
  }
});

test('chains with presets that have no UDP form have no UDP form', () => {
  assert.ok(chainHasUdp(CATALOGUE, aeadChain('aes-256-gcm')));
  assert.ok(chainHasUdp(CATALOGUE, [{ name: 'ss-2022', params: { method: '2022-blake3-aes-256-gcm' } }]));
  assert.ok(!chainHasUdp(CATALOGUE, [...aeadChain('aes-256-gcm'), { name: 'obfs-http' }]));
  assert.ok(!chainHasUdp(CATALOGUE, [{ name: 'v2ray-vmess', params: { id: '00000000-0000-0000-0000-000000000000' } }]));
});

// Mux.Cool carries UDP as sessions in the chain's tunnels, whatever the
// presets before it; nothing is added to a datagram on the wire.
test('a chain with mux has a UDP form: its tunnels', () => {
  const vmess = { name: 'v2ray-vmess', params: { id: '00000000-0000-0000-0000-000000000000' } };
  assert.ok(chainHasUdp(CATALOGUE, [vmess, { name: 'mux' }]));
  assert.ok(chainHasUdp(CATALOGUE, [...aeadChain('aes-256-gcm'), { name: 'mux' }]));
  assert.deepEqual(prepareUdpChain(CATALOGUE, [vmess, { name: 'mux' }], { password: 'x' }), { overhead: 0 });
});
