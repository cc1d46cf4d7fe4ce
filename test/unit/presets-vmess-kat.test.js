import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { prepareChain } from '../../lib/chain/pipeline.js';
import { validateChain } from '../../lib/chain/validate.js';
import { isProtocolError } from '../../lib/wire/protocol-error.js';
import * as aeadHeader from '../../lib/presets/vmess/aead-header.js';
import { createBodyDecoder, shakeMask } from '../../lib/presets/vmess/body.js';
import { alterIds, cmdKey, uuidBytes } from '../../lib/presets/vmess/id.js';
import { kdf } from '../../lib/presets/vmess/kdf.js';
import * as legacyHeader from '../../lib/presets/vmess/legacy-header.js';
import { decodeRequest, fnv1a32, requestLength } from '../../lib/presets/vmess/request.js';
import { ID, PAYLOAD } from '../fixtures/vmess/fixture-data.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// Known answers for v2ray-vmess: V2Ray's own KDF test vector, and bytes
// V2Ray 4.34 itself put on the wire (test/fixtures/vmess/, recorded by
// record.js there): its client's requests, read by our server stage at the
// second they were recorded, and its server's responses to requests of
// ours, read with the body key and IV our request chose.
const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/vmess/${name}.json`, import.meta.url), 'utf8'));
const VARIANTS = ['aes-128-gcm', 'chacha20-poly1305', 'none'].flatMap((security) =>
  [0, 2].map((alterId) => ({ security, alterId })),
);
const chain = ({ security, alterId }) => [{ name: 'v2ray-vmess', params: { id: ID, security, alterId } }];

// A salt filter like the relay's: a Set of what it has seen.
const saltFilter = () => {
  const seen = new Set();
  return { add: (salt) => (seen.has(salt.toString('hex')) ? false : (seen.add(salt.toString('hex')), true)) };
};

// Feeds `wire` to a server stage in uneven pieces; resolves what it decoded.
function serve(presets, wire, salts = saltFilter()) {
  let target = null;
  const out = [];
  const decode = prepareChain(CATALOGUE, presets, { password: '', salts })('server', {
    onTarget: (address) => {
      target = address;
    },
  }).decoder((data) => out.push(data));
  for (let offset = 0, step = 1; offset < wire.length; offset += step, step = step * 3 + 1)
    decode(wire.subarray(offset, offset + step));
  return { target, data: Buffer.concat(out) };
}

const refusedWith = (pattern) => (error) => isProtocolError(error) && pattern.test(error.message);

test("KDF: V2Ray's test vector (proxy/vmess/aead/kdf_test.go)", () => {
  const key = kdf(
    Buffer.from('Demo Key for KDF Value Test'),
    'Demo Path for KDF Value Test',
    'Demo Path for KDF Value Test2',
    'Demo Path for KDF Value Test3',
  );
  assert.equal(key.toString('hex'), '53e9d7e1bd7bd25022b71ead07d8a596efc8a845c7888652fd684b4903dc8892');
});

test('FNV-1a 32 and SHAKE128 masks: published values', () => {
  assert.equal(fnv1a32(Buffer.alloc(0)), 0x811c9dc5);
  assert.equal(fnv1a32(Buffer.from('a')), 0xe40c292c);
  assert.equal(fnv1a32(Buffer.from('foobar')), 0xbf9cf968);
  // SHAKE128("") starts 7f9c2ba4e88f827d616045507605853e (FIPS 202 examples).
  const mask = shakeMask(Buffer.alloc(0));
  const first = Array.from({ length: 8 }, () => mask().toString(16).padStart(4, '0')).join('');
  assert.equal(first, '7f9c2ba4e88f827d616045507605853e');
  // Past the first 256 bytes the stream is recomputed longer: it must continue.
  const long = shakeMask(Buffer.from('iv'));
  const values = Array.from({ length: 300 }, () => long());
  const bytes = Buffer.alloc(600);
  values.forEach((value, i) => bytes.writeUInt16BE(value, i * 2));
  assert.deepEqual(bytes, createHash('shake128', { outputLength: 600 }).update('iv').digest());
});

for (const variant of VARIANTS) {
  const name = `${variant.security}-alter${variant.alterId}`;
  test(`V2Ray 4.34 client request, ${name}: our server reads its target and payload`, (t) => {
    const recorded = fixture(`request-${name}`);
    t.mock.timers.enable({ apis: ['Date'], now: recorded.seconds * 1000 });
    const { target, data } = serve(chain(variant), Buffer.from(recorded.wire, 'hex'));
    assert.deepEqual(target, recorded.target);
    assert.deepEqual(data, PAYLOAD);
  });

  test(`V2Ray 4.34 server response, ${name}: our codecs read its header and payload`, () => {
    const recorded = fixture(`response-${name}`);
    const request = Buffer.from(recorded.request, 'hex');
    const key = cmdKey(uuidBytes(ID));
    let header;
    let secrets;
    let offset;
    if (variant.alterId === 0) {
      const { sealedLength, open } = aeadHeader.openRequestPrefix(key, request.subarray(0, aeadHeader.PREFIX_LENGTH));
      header = decodeRequest(open(request.subarray(aeadHeader.PREFIX_LENGTH, aeadHeader.PREFIX_LENGTH + sealedLength)));
      secrets = aeadHeader.responseSecrets(header.bodyKey, header.bodyIv);
      const wire = Buffer.from(recorded.wire, 'hex');
      const opener = aeadHeader.openResponseLength(secrets);
      const length = opener.sealedLength(wire.subarray(0, aeadHeader.LENGTH_RECORD));
      const plain = opener.open(wire.subarray(aeadHeader.LENGTH_RECORD, aeadHeader.LENGTH_RECORD + length));
      assert.deepEqual([...plain], [header.responseByte, 0, 0, 0], 'response byte echoed, no option, no command');
      offset = aeadHeader.LENGTH_RECORD + length;
    } else {
      // Which second our client chose is found as V2Ray's server finds it.
      const table = legacyHeader.createAuthTable(
        [uuidBytes(ID), ...alterIds(uuidBytes(ID), variant.alterId)],
        () => recorded.seconds,
      );
      const seconds = table.lookup(request.subarray(0, 16));
      assert.notEqual(seconds, undefined, 'the request authenticates as one of the IDs');
      const plain = legacyHeader.headerDecipher(key, seconds).update(request.subarray(16));
      header = decodeRequest(plain.subarray(0, requestLength(plain)));
      secrets = legacyHeader.responseSecrets(header.bodyKey, header.bodyIv);
      const response = legacyHeader.responseDecipher(secrets).update(Buffer.from(recorded.wire, 'hex').subarray(0, 4));
      assert.deepEqual([...response], [header.responseByte, 0, 0, 0]);
      offset = 4;
    }
    const out = [];
    createBodyDecoder({ option: header.option, security: header.security, key: secrets.key, iv: secrets.iv })(
      Buffer.from(recorded.wire, 'hex').subarray(offset),
      (data) => out.push(data),
    );
    assert.deepEqual(Buffer.concat(out), PAYLOAD);
  });
}

test("alter IDs: V2Ray's client authenticated with one of the derived IDs", () => {
  const recorded = fixture('request-aes-128-gcm-alter2');
  const wire = Buffer.from(recorded.wire, 'hex');
  const ids = alterIds(uuidBytes(ID), 2);
  const hits = ids.filter((id) =>
    Array.from({ length: 61 }, (_, i) => recorded.seconds - 30 + i).some((seconds) =>
      legacyHeader.authHash(id, seconds).equals(wire.subarray(0, 16)),
    ),
  );
  assert.equal(hits.length, 1, 'V2Ray picks one alter ID, never the main one, within +-30 s');
});

test('replay: a repeated auth ID or legacy session is refused, as are stale headers', (t) => {
  for (const variant of [
    { security: 'aes-128-gcm', alterId: 0 },
    { security: 'aes-128-gcm', alterId: 2 },
  ]) {
    const recorded = fixture(`request-${variant.security}-alter${variant.alterId}`);
    const wire = Buffer.from(recorded.wire, 'hex');
    t.mock.timers.enable({ apis: ['Date'], now: recorded.seconds * 1000 });
    const salts = saltFilter();
    serve(chain(variant), wire, salts);
    assert.throws(
      () => serve(chain(variant), wire, salts),
      refusedWith(/replayed/),
      `alterId ${variant.alterId}: replay`,
    );
    t.mock.timers.reset();
    t.mock.timers.enable({ apis: ['Date'], now: (recorded.seconds + 200) * 1000 });
    assert.throws(
      () => serve(chain(variant), wire),
      refusedWith(variant.alterId === 0 ? /more than 120 s/ : /unknown user/),
      `alterId ${variant.alterId}: stale`,
    );
    t.mock.timers.reset();
  }
});

test('hostile input: another user, a flipped header length, a flipped chunk are protocol errors', (t) => {
  const recorded = fixture('request-aes-128-gcm-alter0');
  t.mock.timers.enable({ apis: ['Date'], now: recorded.seconds * 1000 });
  const wire = Buffer.from(recorded.wire, 'hex');
  const other = [{ name: 'v2ray-vmess', params: { id: '00000000-0000-4000-8000-000000000000' } }];
  assert.throws(() => serve(other, wire), refusedWith(/unknown user/));
  const flipped = Buffer.from(wire);
  flipped[20] ^= 1;
  assert.throws(
    () => serve(chain({ security: 'aes-128-gcm', alterId: 0 }), flipped),
    refusedWith(/request header length: authentication failed/),
  );
  const body = Buffer.from(wire);
  body[300] ^= 1;
  assert.throws(
    () => serve(chain({ security: 'aes-128-gcm', alterId: 0 }), body),
    refusedWith(/chunk authentication failed/),
  );
});

test("params: id must be a UUID, alterId an integer, security one of V2Ray's", () => {
  const problems = (params) =>
    validateChain(CATALOGUE, [{ name: 'v2ray-vmess', params }]).map((p) => `${p.field}: ${p.message}`);
  assert.deepEqual(problems({ id: ID }), []);
  assert.match(problems({})[0], /presets\[0\]\.params\.id: missing; the user UUID/);
  assert.match(problems({ id: 'nope' })[0], /must be a UUID/);
  assert.match(problems({ id: ID, alterId: -1 })[0], /alterId: must be an integer from 0 to 1024/);
  assert.match(
    problems({ id: ID, security: 'aes-256-gcm' })[0],
    /unknown security "aes-256-gcm" \(did you mean "aes-128-gcm"\?\); valid: aes-128-gcm, chacha20-poly1305, none, auto, zero/,
  );
});

test('legacy hash table: every second within 120 s of the clock, moving with it', () => {
  const id = uuidBytes(ID);
  let now = 1_700_000_000;
  const table = legacyHeader.createAuthTable([id], () => now);
  assert.equal(table.lookup(legacyHeader.authHash(id, now - 120)), now - 120);
  assert.equal(table.lookup(legacyHeader.authHash(id, now + 120)), now + 120);
  assert.equal(table.lookup(legacyHeader.authHash(id, now - 121)), undefined);
  assert.equal(table.lookup(legacyHeader.authHash(id, now + 121)), undefined);
  now += 500;
  assert.equal(table.lookup(legacyHeader.authHash(id, now - 500)), undefined, 'a second that left the window');
  assert.equal(table.lookup(legacyHeader.authHash(id, now + 120)), now + 120, 'a second that entered it');
  assert.equal(
    table.lookup(legacyHeader.authHash(alterIds(id, 1)[0], now)),
    undefined,
    'an alter ID the table was not given',
  );
});
