import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { blake3 } from '@noble/hashes/blake3';
import { AEAD_2022_METHODS, deriveSessionSubkey, newPsk, parsePsk } from '../lib/crypto/aead-2022-methods.js';
import { createByteQueue } from '../lib/wire/byte-queue.js';
import { prepareChain } from '../lib/chain/pipeline.js';
import ss2022 from '../lib/presets/ss-2022/ss-2022.js';
import { isProtocolError } from '../lib/wire/protocol-error.js';
import {
  createBodyOpener,
  createBodySealer,
  openRecord,
  sealRecord,
  TAG_LENGTH,
} from '../lib/presets/ss-2022/chunks.js';
import {
  decodeRequestFixed,
  decodeRequestVariable,
  decodeResponseFixed,
  MAX_CLOCK_SKEW_S,
  REQUEST_FIXED_LENGTH,
  responseFixedLength,
  unixSeconds,
} from '../lib/presets/ss-2022/headers.js';
import { createSaltPool } from '../lib/presets/ss-2022/salt-pool.js';
import { CLI } from './support/processes.js';
import { CATALOGUE } from '../lib/presets/index.js';

// Known answers for Shadowsocks 2022 (SIP022). The spec itself gives no
// test vectors, so: BLAKE3's own derive_key vectors for the package we
// derive subkeys with, and a real shadowsocks-rust 1.25 session (sslocal's
// request, ssserver's response to it, recorded with a fixed key by
// test/support/record-ss-rust-transcript.js) decoded byte for byte.
const METHODS = Object.keys(AEAD_2022_METHODS);
const TARGET = { host: '127.0.0.1', port: 8080 };
const { recorded, transcripts } = JSON.parse(
  readFileSync(new URL('./fixtures/ss-2022-transcripts.json', import.meta.url), 'utf8'),
);

// From test_vectors/test_vectors.json of the BLAKE3 reference repository:
// input bytes i % 251, context "BLAKE3 2019-12-27 16:29:52 test vectors context".
const BLAKE3_CONTEXT = 'BLAKE3 2019-12-27 16:29:52 test vectors context';
const BLAKE3_DERIVE_KEY = {
  0: '2cc39783c223154fea8dfb7c1b1660f2ac2dcbd1c1de8277b0b0dd39b7e50d7d905630c8be290dfcf3e6842f13bddd573c098c3f17361f1f206b8cad9d088aa4',
  1: 'b3e2e340a117a499c6cf2398a19ee0d29cca2bb7404c73063382693bf66cb06c5827b91bf889b6b97c5477f535361caefca0b5d8c4746441c576171119331589',
  1025: 'effaa245f065fbf82ac186839a249707c3bddf6d3fdda22d1b95a3c970379bcb5d31013a167509e9066273ab6e2123bc835b408b067d88f96addb550d96b6852',
};

test('BLAKE3 derive_key (@noble/hashes) matches the BLAKE3 reference vectors, at 16, 32 and 64 bytes', () => {
  for (const [length, expected] of Object.entries(BLAKE3_DERIVE_KEY)) {
    const input = Uint8Array.from({ length: Number(length) }, (_, i) => i % 251);
    for (const dkLen of [16, 32, 64]) {
      assert.equal(
        Buffer.from(blake3(input, { context: BLAKE3_CONTEXT, dkLen })).toString('hex'),
        expected.slice(0, 2 * dkLen),
        `input ${length}, ${dkLen} bytes`,
      );
    }
  }
});

test("a PSK is base64 of exactly the method's key length; anything else is refused with how to make one", () => {
  for (const method of METHODS) {
    const { keyLength } = AEAD_2022_METHODS[method];
    const key = newPsk(method);
    assert.equal(parsePsk(method, key).psk.length, keyLength);
    const short = Buffer.alloc(keyLength - 1).toString('base64');
    assert.match(
      parsePsk(method, short).problem,
      new RegExp(
        `^${method} takes a base64 key of ${keyLength} bytes, got ${keyLength - 1}; make one with \`cipherbench key --method ${method}\``,
      ),
    );
    for (const wrong of ['a-password', '', `${key} `, key.replace(/=+$/, ''), `!${key.slice(1)}`]) {
      assert.match(
        parsePsk(method, wrong).problem,
        /takes a base64 pre-shared key of \d+ bytes, not a password/,
        JSON.stringify(wrong),
      );
    }
  }
});

test('`cipherbench key --method M` prints a fresh key the method takes; a non-2022 method is a usage error', () => {
  for (const method of METHODS) {
    const printed = execFileSync(process.execPath, [CLI, 'key', '--method', method], { encoding: 'utf8' });
    assert.match(printed, /^[A-Za-z0-9+/]+=*\n$/);
    assert.ok(parsePsk(method, printed.trim()).psk);
  }
  assert.throws(
    () => execFileSync(process.execPath, [CLI, 'key', '--method', 'aes-256-gcm'], { stdio: 'pipe' }),
    (error) => {
      assert.equal(error.status, 2);
      assert.match(
        error.stderr.toString(),
        /^cipherbench: --method: "aes-256-gcm" is not a Shadowsocks 2022 method .*\n$/,
      );
      return true;
    },
  );
});

test('the relay refuses a password where a 2022 PSK is due, in one line, exit 2', () => {
  const presets = JSON.stringify([{ name: 'ss-2022', params: { method: '2022-blake3-aes-256-gcm' } }]);
  assert.throws(
    () =>
      execFileSync(
        process.execPath,
        [CLI, 'relay', 'server', '--listen', '0', '--key', 'hunter2', '--presets', presets],
        { stdio: 'pipe' },
      ),
    (error) => {
      assert.equal(error.status, 2);
      assert.equal(
        error.stderr.toString(),
        'cipherbench: --key: 2022-blake3-aes-256-gcm takes a base64 pre-shared key of 32 bytes, not a password; ' +
          'make one with `cipherbench key --method 2022-blake3-aes-256-gcm` or `openssl rand -base64 32`\n',
      );
      return true;
    },
  );
});

// Decodes one recorded stream with the codec alone, at the recording's time;
// returns the header fields and every payload byte, and checks that no
// byte is left over.
function decodeStream(method, psk, wire, { request, now }) {
  const { keyLength, aead } = AEAD_2022_METHODS[method];
  const salt = wire.subarray(0, keyLength);
  const subkey = deriveSessionSubkey(psk, salt);
  const key = aead.importKey(subkey);
  let at = keyLength;
  const take = (n) => wire.subarray(at, (at += n));
  const fixedLength = request ? REQUEST_FIXED_LENGTH : responseFixedLength(keyLength);
  const fixed = openRecord(aead, key, 0, take(fixedLength + TAG_LENGTH), 'fixed header');
  const out = { salt, payloads: [] };
  if (request) {
    const variable = decodeRequestVariable(
      openRecord(aead, key, 1, take(decodeRequestFixed(fixed, now) + TAG_LENGTH), 'variable header'),
    );
    out.target = variable.target;
    out.payloads.push(variable.payload);
  } else {
    const { requestSalt, firstLength } = decodeResponseFixed(fixed, keyLength, now);
    out.requestSalt = Buffer.from(requestSalt);
    out.payloads.push(openRecord(aead, key, 1, take(firstLength + TAG_LENGTH), 'first payload'));
  }
  const queue = createByteQueue();
  queue.push(wire.subarray(at));
  createBodyOpener(aead, subkey, key)(queue, (payload) => out.payloads.push(payload));
  assert.equal(queue.length, 0, 'every recorded byte belongs to a whole record');
  out.payload = Buffer.concat(out.payloads);
  return out;
}

for (const transcript of transcripts) {
  test(`shadowsocks-rust transcript, ${transcript.method}: sslocal's request and ssserver's response decode byte for byte`, () => {
    const { psk } = parsePsk(transcript.method, transcript.key);
    const now = Math.floor(Date.parse(recorded) / 1000);
    const payload = Buffer.from(transcript.payload, 'hex');
    const request = decodeStream(transcript.method, psk, Buffer.from(transcript.request, 'hex'), {
      request: true,
      now,
    });
    assert.deepEqual(request.target, transcript.target);
    assert.deepEqual(request.payload, payload);
    const response = decodeStream(transcript.method, psk, Buffer.from(transcript.response, 'hex'), {
      request: false,
      now,
    });
    assert.deepEqual(response.requestSalt, request.salt, "the response names the request's salt");
    assert.deepEqual(response.payload, payload, "the echo target's reply");
  });
}

test('the preset refuses the recorded request today: its timestamp is over 30 s old (a replay)', () => {
  const transcript = transcripts[0];
  const chain = [{ name: 'ss-2022', params: { method: transcript.method } }];
  const decode = prepareChain(CATALOGUE, chain, { password: transcript.key })('server', {
    onTarget: () => assert.fail('no target for a replay'),
  }).decoder(() => {});
  assert.throws(
    () => decode(Buffer.from(transcript.request, 'hex')),
    (error) => isProtocolError(error) && /timestamp .* a replay/.test(error.message),
  );
});

// A client and a server of one chain, wired in memory; `reads` splits what
// the client sends after its first write (the salt and header, one read).
function pair(method, { password = newPsk(method), serverChain } = {}) {
  const chain = [{ name: 'ss-2022', params: { method } }];
  const targets = [];
  const client = prepareChain(CATALOGUE, chain, { password })('client', { target: TARGET });
  const server = (serverChain ?? prepareChain(CATALOGUE, chain, { password }))('server', {
    onTarget: (target) => targets.push(target),
  });
  const toServer = [];
  const atServer = [];
  const toClient = [];
  const atClient = [];
  return {
    password,
    chain,
    targets,
    encode: client.encoder((data) => toServer.push(data)),
    decode: server.decoder((data) => atServer.push(data)),
    reply: server.encoder((data) => toClient.push(data)),
    receive: client.decoder((data) => atClient.push(data)),
    toServer,
    atServer,
    toClient,
    atClient,
  };
}

test('every method carries both ways in memory, however the reads after the header are cut', () => {
  for (const method of METHODS) {
    const p = pair(method);
    const data = randomBytes(200_000);
    p.encode(Buffer.alloc(0));
    p.encode(data);
    assert.equal(p.toServer.length > 1, true);
    p.decode(p.toServer[0]);
    const rest = Buffer.concat(p.toServer.slice(1));
    for (let at = 0; at < rest.length; at += 7777) p.decode(rest.subarray(at, at + 7777));
    assert.deepEqual(p.targets, [TARGET]);
    assert.deepEqual(Buffer.concat(p.atServer), data);
    p.reply(data);
    const wire = Buffer.concat(p.toClient);
    p.receive(wire.subarray(0, 5000));
    for (let at = 5000; at < wire.length; at += 1) p.receive(wire.subarray(at, at + 1));
    assert.deepEqual(Buffer.concat(p.atClient), data);
  }
});

test('the request goes out as one write of salt and both header chunks, padded when it carries no payload', () => {
  const method = '2022-blake3-aes-256-gcm';
  const lengths = new Set();
  for (let i = 0; i < 20; i++) {
    const p = pair(method);
    p.encode(Buffer.alloc(0));
    assert.equal(p.toServer.length, 1);
    lengths.add(p.toServer[0].length);
    // salt 32, fixed 11 + 16, IPv4 address 7, padding length 2, padding 1..900, tag 16
    assert.ok(p.toServer[0].length >= 32 + 27 + 7 + 2 + 1 + 16 && p.toServer[0].length <= 32 + 27 + 7 + 2 + 900 + 16);
  }
  assert.ok(lengths.size > 1, 'the padding length varies');
});

test('a 64 KiB read is sealed as two equal chunks, not a full one and a 1-byte one', () => {
  const { aead } = AEAD_2022_METHODS['2022-blake3-aes-128-gcm'];
  const subkey = randomBytes(16);
  const pushed = [];
  createBodySealer(aead, subkey, aead.importKey(subkey))(Buffer.alloc(65536), (data) => pushed.push(data.length));
  assert.deepEqual(pushed, [18, 32768, 16, 18, 32768, 16]);
});

test("replay: a request seen before is refused by the same server, and a server's salts are kept 60 s", () => {
  const method = '2022-blake3-chacha20-poly1305';
  const password = newPsk(method);
  const chain = [{ name: 'ss-2022', params: { method } }];
  const serverChain = prepareChain(CATALOGUE, chain, { password });
  const first = pair(method, { password, serverChain });
  first.encode(Buffer.from('hello'));
  const recorded = Buffer.concat(first.toServer);
  first.decode(recorded);
  assert.deepEqual(Buffer.concat(first.atServer).toString(), 'hello');
  const replayed = serverChain('server', { onTarget: () => assert.fail('a replay must not reach the target') }).decoder(
    () => {},
  );
  assert.throws(
    () => replayed(recorded),
    (error) => isProtocolError(error) && error.message === 'salt seen before: a replay',
  );
});

test("replay: the relay's server-wide salt filter is asked too, for incoming salts and the stream's own", () => {
  const method = '2022-blake3-aes-128-gcm';
  const password = newPsk(method);
  const chain = [{ name: 'ss-2022', params: { method } }];
  const seen = [];
  const refuseAll = { add: (salt) => seen.push(Buffer.from(salt)) && false };
  const client = prepareChain(CATALOGUE, chain, { password })('client', { target: TARGET });
  const wire = [];
  client.encoder((data) => wire.push(data))(Buffer.from('x'));
  const decode = prepareChain(CATALOGUE, chain, { password, salts: refuseAll })('server', {
    onTarget: () => assert.fail('refused salt'),
  }).decoder(() => {});
  assert.throws(() => decode(Buffer.concat(wire)), /salt seen before/);
  assert.deepEqual(seen, [wire[0].subarray(0, 16)]);
});

test("the salt pool forgets a salt after 60 s and holds only the last minute's", () => {
  let now = 0;
  const pool = createSaltPool({ now: () => now });
  const a = randomBytes(32);
  assert.equal(pool.add(a), true);
  now = 59_999;
  assert.equal(pool.add(a), false);
  assert.equal(pool.add(randomBytes(32)), true);
  now = 60_000;
  assert.equal(pool.add(a), true, 'a is out of the window again');
  assert.equal(pool.size, 2);
  now = 200_000;
  pool.add(randomBytes(32));
  assert.equal(pool.size, 1);
});

test('timestamps: within 30 s accepted, beyond refused, both ways', () => {
  const now = unixSeconds();
  const request = (offset) => {
    const header = Buffer.alloc(REQUEST_FIXED_LENGTH);
    header.writeBigUInt64BE(BigInt(now + offset), 1);
    header.writeUInt16BE(42, 9);
    return header;
  };
  assert.equal(decodeRequestFixed(request(MAX_CLOCK_SKEW_S), now), 42);
  assert.equal(decodeRequestFixed(request(-MAX_CLOCK_SKEW_S), now), 42);
  for (const offset of [MAX_CLOCK_SKEW_S + 1, -MAX_CLOCK_SKEW_S - 1, 2 ** 40]) {
    assert.throws(
      () => decodeRequestFixed(request(offset), now),
      (error) => isProtocolError(error) && /a replay/.test(error.message),
    );
  }
  const response = Buffer.alloc(responseFixedLength(16));
  response[0] = 1;
  response.writeBigUInt64BE(BigInt(now - 31), 1);
  assert.throws(() => decodeResponseFixed(response, 16, now), /a replay/);
  assert.throws(
    () => decodeResponseFixed(request(0), 16, now),
    (error) => isProtocolError(error) && /header type 0, expected 1/.test(error.message),
  );
});

// A request sealed by hand, to say what a hostile or broken client could send.
function craftRequest(method, password, { type = 0, variable }) {
  const { keyLength, aead } = AEAD_2022_METHODS[method];
  const { psk } = parsePsk(method, password);
  const salt = randomBytes(keyLength);
  const key = aead.importKey(deriveSessionSubkey(psk, salt));
  const fixed = Buffer.alloc(REQUEST_FIXED_LENGTH);
  fixed[0] = type;
  fixed.writeBigUInt64BE(BigInt(unixSeconds()), 1);
  fixed.writeUInt16BE(variable.length, 9);
  return Buffer.concat([salt, sealRecord(aead, key, 0, fixed), sealRecord(aead, key, 1, variable)]);
}

const address = Buffer.from([1, 127, 0, 0, 1, 0x1f, 0x90]);
const u16 = (n) => Buffer.from([n >> 8, n & 0xff]);

test('hostile requests are protocol errors before any target: short first read, bad tag, wrong type, bad padding', () => {
  const method = '2022-blake3-aes-128-gcm';
  const password = newPsk(method);
  const chain = [{ name: 'ss-2022', params: { method } }];
  const serverChain = prepareChain(CATALOGUE, chain, { password });
  const refused = (reads, pattern) => {
    const decode = serverChain('server', { onTarget: () => assert.fail('no target for a hostile request') }).decoder(
      () => {},
    );
    assert.throws(
      () => reads.forEach((read) => decode(read)),
      (error) => isProtocolError(error) && pattern.test(error.message),
      String(pattern),
    );
  };
  const good = craftRequest(method, password, { variable: Buffer.concat([address, u16(3), Buffer.alloc(3)]) });
  refused(
    [good.subarray(0, 16 + 27 - 1), good.subarray(16 + 27 - 1)],
    /first read of 42 bytes is shorter than the salt and fixed-length request header \(43\)/,
  );
  refused([Buffer.from([1])], /first read of 1 bytes/);
  refused([randomBytes(200)], /AEAD tag mismatch in the request header/);
  refused([craftRequest(method, newPsk(method), { variable: address })], /AEAD tag mismatch/);
  refused(
    [craftRequest(method, password, { type: 1, variable: Buffer.concat([address, u16(1), Buffer.alloc(1)]) })],
    /header type 1, expected 0/,
  );
  refused(
    [craftRequest(method, password, { variable: Buffer.concat([address, u16(0)]) })],
    /neither initial payload nor padding/,
  );
  refused(
    [craftRequest(method, password, { variable: Buffer.concat([address, u16(901), Buffer.alloc(901)]) })],
    /padding length 901 exceeds 900/,
  );
  refused(
    [craftRequest(method, password, { variable: Buffer.concat([address, u16(10), Buffer.alloc(9)]) })],
    /padding extends beyond the header chunk/,
  );
  refused([craftRequest(method, password, { variable: address.subarray(0, 5) })], /ends inside the address/);
  refused(
    [
      craftRequest(method, password, {
        variable: Buffer.concat([Buffer.from([9]), address.subarray(1), u16(1), Buffer.alloc(1)]),
      }),
    ],
    /unknown address type 9/,
  );
  // The same request, whole: accepted, with its payload after the padding.
  const targets = [];
  const payloads = [];
  serverChain('server', { onTarget: (target) => targets.push(target) }).decoder((data) => payloads.push(data))(
    craftRequest(method, password, { variable: Buffer.concat([address, u16(2), Buffer.alloc(2), Buffer.from('hi')]) }),
  );
  assert.deepEqual(targets, [{ host: '127.0.0.1', port: 8080 }]);
  assert.deepEqual(payloads, [Buffer.from('hi')]);
});

test('a client refuses a response to another request, a response before its request, and a short first read', () => {
  const method = '2022-blake3-aes-256-gcm';
  const a = pair(method);
  const b = pair(method, { password: a.password });
  for (const p of [a, b]) {
    p.encode(Buffer.from('q'));
    p.decode(Buffer.concat(p.toServer));
  }
  b.reply(Buffer.from('answer to b'));
  assert.throws(
    () => a.receive(Buffer.concat(b.toClient)),
    (error) => isProtocolError(error) && /another request's salt/.test(error.message),
  );
  const early = prepareChain(CATALOGUE, a.chain, { password: a.password })('client', { target: TARGET }).decoder(
    () => {},
  );
  assert.throws(() => early(Buffer.concat(b.toClient)), /a response before any request/);
  const c = pair(method, { password: a.password });
  c.encode(Buffer.from('q'));
  c.decode(Buffer.concat(c.toServer));
  c.reply(Buffer.from('r'));
  assert.throws(
    () => c.receive(Buffer.concat(c.toClient).subarray(0, 90)),
    /first read of 90 bytes is shorter than the salt and fixed-length response header \(91\)/,
  );
});

test('the server answers only with data: an empty read sends no response header', () => {
  const p = pair('2022-blake3-aes-128-gcm');
  p.encode(Buffer.from('q'));
  p.decode(Buffer.concat(p.toServer));
  p.reply(Buffer.alloc(0));
  assert.equal(p.toClient.length, 0);
});

test('a stream that ends inside a header or a chunk is a cut stream (decodeEnded), one that ends between chunks is not', () => {
  const method = '2022-blake3-aes-128-gcm';
  const password = newPsk(method);
  const salts = { add: () => true };
  const create = ss2022.prepare({ method }, { password });
  const client = create({ target: TARGET, salts });
  const reads = [];
  client.clientEncode(Buffer.from('hello'), (data) => reads.push(data));
  const body = [];
  client.clientEncode(randomBytes(1000), (data) => body.push(data));
  const wholeBody = Buffer.concat(body);
  // Each in a process of its own, as far as SIP022's salt pool goes.
  const server = (feed) => {
    const stages = ss2022.prepare({ method }, { password })({ onTarget: () => {}, salts });
    feed.forEach((read) => stages.serverDecode(read, () => {}));
    return stages;
  };
  const cut = (stages) =>
    assert.throws(
      () => stages.decodeEnded(),
      (error) => isProtocolError(error) && /stream ended inside a record: truncated/.test(error.message),
    );
  assert.doesNotThrow(() => server([]).decodeEnded(), 'nothing read');
  assert.doesNotThrow(() => server(reads).decodeEnded(), 'the header whole');
  assert.doesNotThrow(() => server([...reads, wholeBody]).decodeEnded(), 'a whole chunk');
  cut(server([reads[0].subarray(0, reads[0].length - 1)]));
  cut(server([...reads, wholeBody.subarray(0, 10)]));
  cut(server([...reads, wholeBody.subarray(0, wholeBody.length - 1)]));
});
