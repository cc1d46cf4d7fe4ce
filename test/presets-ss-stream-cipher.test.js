import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { evpBytesToKey } from '../lib/crypto/evp-bytes-to-key.js';
import { LEGACY_FLAG, legacyProviderStatus } from '../lib/crypto/legacy-provider.js';
import { chainNeedsLegacyProvider } from '../lib/chain/requirements.js';
import { prepareChain } from '../lib/chain/pipeline.js';
import { CATALOGUE } from '../lib/presets/index.js';

// The two stream methods only blinksocks has: rc4-md5-6 (RC4 keyed by
// MD5(key || a 6-byte IV)) and none (the plain stream, no IV).

const pipeline = (role, method) => {
  const out = [];
  const stages = prepareChain(CATALOGUE, [{ name: 'ss-stream-cipher', params: { method } }], {
    password: 'cipherbench',
  })(role, {});
  return {
    encode: stages.encoder((d) => out.push(Buffer.from(d))),
    decode: stages.decoder((d) => out.push(Buffer.from(d))),
    out,
  };
};

// blinksocks 3.3.0's ss-stream-cipher rc4-md5-6 sending "hello, cipherbench"
// with the password "cipherbench" (in-process, the IV fixed to 0b30557a9fc4).
const BLINKSOCKS_RC4_MD5_6 = Buffer.from('0b30557a9fc4168edeb99c6863a4ddb63373b08ea9715ff0', 'hex');

// RC4 lives in OpenSSL's legacy provider, loaded only when node starts with
// the flag: without it, this file runs itself again in a child that has it.
test("rc4-md5-6: blinksocks' bytes read, ours are RC4 under MD5(key || 6-byte IV)", () => {
  const status = legacyProviderStatus();
  assert.notEqual(status, 'unavailable', 'this Node has no legacy provider to load');
  if (status === 'not-requested') {
    // Without the runner's NODE_TEST_CONTEXT, so the child prints its own TAP.
    const { NODE_TEST_CONTEXT, ...env } = process.env;
    const child = spawnSync(process.execPath, [LEGACY_FLAG, '--test', fileURLToPath(import.meta.url)], {
      encoding: 'utf8',
      env,
    });
    assert.equal(child.status, 0, child.stdout + child.stderr);
    assert.match(child.stdout, /# pass 3\n/);
    return;
  }
  assert.equal(
    chainNeedsLegacyProvider(CATALOGUE, [
      { name: 'ss-base' },
      { name: 'ss-stream-cipher', params: { method: 'rc4-md5-6' } },
    ]),
    true,
  );
  const server = pipeline('server', 'rc4-md5-6');
  for (const byte of BLINKSOCKS_RC4_MD5_6) server.decode(Buffer.from([byte]));
  assert.equal(Buffer.concat(server.out).toString(), 'hello, cipherbench');

  const client = pipeline('client', 'rc4-md5-6');
  const payload = randomBytes(10_000);
  client.encode(payload);
  assert.equal(client.out.length, 1, 'the IV leaves in one write with the first bytes');
  const [wire] = client.out;
  assert.equal(wire.length, 6 + payload.length);
  const rc4Key = createHash('md5').update(evpBytesToKey('cipherbench', 16)).update(wire.subarray(0, 6)).digest();
  assert.deepEqual(createDecipheriv('rc4', rc4Key, null).update(wire.subarray(6)), payload);
});

test('none: the wire is the plaintext, nothing before it, and it needs no legacy provider', () => {
  assert.equal(
    chainNeedsLegacyProvider(CATALOGUE, [
      { name: 'ss-base' },
      { name: 'ss-stream-cipher', params: { method: 'none' } },
    ]),
    false,
  );
  const client = pipeline('client', 'none');
  client.encode(Buffer.alloc(0));
  client.encode(Buffer.from('hello'));
  assert.deepEqual(Buffer.concat(client.out), Buffer.from('hello'), 'what blinksocks\' none sends for "hello"');
  const server = pipeline('server', 'none');
  server.decode(Buffer.from('hello'));
  server.decode(Buffer.from(' world'));
  assert.equal(Buffer.concat(server.out).toString(), 'hello world');
});

// blinksocks 3.3.0 defect: its decoder takes the IV from the first read
// only. A first read shorter than the IV fails the connection, and one that
// is exactly the IV passes an empty buffer on, which its ss-base refuses
// ("invalid length: 0"). Ours waits for the IV, and sends it in one write
// with the first bytes after it (above), so blinksocks gets them together.
test('blinksocks defect: the IV must arrive whole in the first read, with bytes after it', async (t) => {
  const { blinksocksRequire, requireBlinksocks } = await import('./support/blinksocks-peer.js');
  if (!requireBlinksocks(t)) return;
  const { default: Stream } = blinksocksRequire()('../lib/presets/ss-stream-cipher.js');
  const theirs = () => {
    const preset = new Stream({ config: { key: 'cipherbench', is_client: false } });
    preset.onInit({ method: 'aes-256-ctr' });
    return preset;
  };
  const failures = [];
  theirs().beforeIn({ buffer: randomBytes(10), fail: (message) => failures.push(message) });
  assert.match(failures[0], /buffer is too short to get iv/);
  assert.equal(
    theirs().beforeIn({ buffer: randomBytes(16), fail: assert.fail }).length,
    0,
    'an IV alone goes on as empty data',
  );

  const client = pipeline('client', 'aes-256-ctr');
  client.encode(Buffer.from([1, 127, 0, 0, 1, 0x14, 0x51]));
  const wire = Buffer.concat(client.out);
  const server = pipeline('server', 'aes-256-ctr');
  for (const piece of [wire.subarray(0, 10), wire.subarray(10, 16), wire.subarray(16)]) server.decode(piece);
  assert.deepEqual(Buffer.concat(server.out), Buffer.from([1, 127, 0, 0, 1, 0x14, 0x51]));
});
