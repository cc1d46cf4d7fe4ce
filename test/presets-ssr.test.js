import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, test } from 'node:test';
import { isProtocolError } from '../lib/wire/protocol-error.js';
import { prepareChain } from '../lib/chain/pipeline.js';
import { CATALOGUE } from '../lib/presets/index.js';
import { validateChain } from '../lib/chain/validate.js';
import { chainBSizes } from '../lib/presets/ssr/auth-chain-padding.js';
import { fromBytes, fromHashAndLength } from '../lib/presets/ssr/xorshift128plus.js';
import { withLegacyProvider } from './support/legacy.js';
import { SSR_PROTOCOLS, ssrChain } from './support/ssr.js';

// Known answers from the Python ShadowsocksR relay (fixtures/ssr/make-vectors.py
// computes them with its randomness and clock fixed): what its client's
// protocol layer writes, which our server must read back to the bytes it
// carried, with the same key derivation, handshake block and HMACs.
const VECTORS = JSON.parse(readFileSync(new URL('./fixtures/ssr/vectors.json', import.meta.url), 'utf8'));
const PRESET_OF = Object.fromEntries(Object.entries(SSR_PROTOCOLS).map(([preset, protocol]) => [protocol, preset]));
const hex = (text) => Buffer.from(text, 'hex');

const realNow = Date.now;
afterEach(() => {
  Date.now = realNow;
});
const setClock = (seconds) => {
  Date.now = () => seconds * 1000;
};

// A server stage of `preset` as the chain would give it, with the stream
// cipher's key and the client's IV published beneath it.
function serverDecoder(factory, { key, iv }) {
  const layers = { streamCipher: { key: hex(key), sentIv: Buffer.alloc(0), receivedIv: hex(iv) } };
  return factory({ layers, salts: { add: () => true } }).serverDecode;
}

function decodeAll(decode, wire, step = wire.length) {
  const out = [];
  for (let i = 0; i < wire.length; i += step) decode(wire.subarray(i, i + step), (data) => out.push(Buffer.from(data)));
  return Buffer.concat(out);
}

const expectProtocolError = (fn, pattern) =>
  assert.throws(fn, (error) => isProtocolError(error) && pattern.test(error.message));

// auth_chain encrypts with RC4, in OpenSSL 3's legacy provider.
if (withLegacyProvider(import.meta.url)) defineTests();

function defineTests() {
  describe("ShadowsocksR presets: the Python client's bytes", () => {
    for (const vector of VECTORS.streams) {
      const name = PRESET_OF[vector.protocol];
      test(`${name} over ${vector.method}`, () => {
        setClock(vector.now);
        const factory = CATALOGUE.named(name).prepare({}, { password: VECTORS.password });
        const wire = hex(vector.wire);
        const expected = Buffer.concat([hex(vector.first), hex(vector.second)]);
        assert.deepEqual(decodeAll(serverDecoder(factory, vector), wire), expected);
        // The same bytes again are a replay: same client id and connection id.
        expectProtocolError(() => decodeAll(serverDecoder(factory, vector), wire), /used before/);
        // Read a byte at a time by a fresh server, as a slow network gives them.
        const fresh = CATALOGUE.named(name).prepare({}, { password: VECTORS.password });
        assert.deepEqual(decodeAll(serverDecoder(fresh, vector), wire, 1), expected);
      });
    }

    test('the key derivation of the stream cipher underneath is the one Python uses', () => {
      for (const vector of VECTORS.streams) {
        const layers = {};
        CATALOGUE.named('ss-stream-cipher').prepare(
          { method: vector.method },
          { password: VECTORS.password },
        )({ layers, salts: { add: () => true } });
        assert.equal(layers.streamCipher.key.toString('hex'), vector.key, vector.method);
      }
    });

    test('a clock more than a day off is refused; one within a day is not', () => {
      const vector = VECTORS.streams.find((v) => v.protocol === 'auth_chain_a');
      const wire = hex(vector.wire);
      setClock(vector.now + 86_400 + 5);
      expectProtocolError(
        () => decodeAll(serverDecoder(CATALOGUE.named('ssr-auth-chain-a').prepare({}, {}), vector), wire),
        /clock/,
      );
      setClock(vector.now - 86_000);
      assert.ok(decodeAll(serverDecoder(CATALOGUE.named('ssr-auth-chain-a').prepare({}, {}), vector), wire).length > 0);
    });

    test('a flipped byte anywhere is a protocol error, never another exception', () => {
      for (const vector of VECTORS.streams) {
        const wire = hex(vector.wire);
        for (let at = 0; at < wire.length; at += 97) {
          setClock(vector.now);
          const bad = Buffer.from(wire);
          bad[at] ^= 0x40;
          const decode = serverDecoder(CATALOGUE.named(PRESET_OF[vector.protocol]).prepare({}, {}), vector);
          assert.throws(() => decodeAll(decode, bad), isProtocolError, `${vector.protocol} byte ${at}`);
        }
      }
    });
  });

  describe('ShadowsocksR presets: random bytes at the server', () => {
    // What a prober sends: each read is either refused with a protocol
    // error or waited on (a handshake still short), never another error.
    for (const preset of Object.keys(SSR_PROTOCOLS)) {
      test(preset, () => {
        const factory = CATALOGUE.named(preset).prepare({}, {});
        const layers = {
          streamCipher: { key: Buffer.alloc(16, 1), sentIv: Buffer.alloc(16), receivedIv: Buffer.alloc(16, 2) },
        };
        let refused = 0;
        for (let i = 0; i < 2000; i++) {
          const decode = factory({ layers, salts: { add: () => true } }).serverDecode;
          try {
            decode(randomBytes(1 + (i % 300)), () => assert.fail('random bytes decoded to data'));
          } catch (error) {
            assert.ok(isProtocolError(error), error.stack);
            refused += 1;
          }
        }
        assert.ok(refused > 1900, `${refused} of 2000 refused`);
      });
    }
  });

  describe("auth_chain's generator and padding sizes, against Python's", () => {
    test('xorshift128+', () => {
      const seed = hex(VECTORS.xorshift.seed);
      const plain = fromBytes(seed);
      assert.deepEqual(
        VECTORS.xorshift.fromBytes.map(() => plain.next().toString()),
        VECTORS.xorshift.fromBytes,
      );
      const withLength = fromHashAndLength(seed, 1234);
      assert.deepEqual(
        VECTORS.xorshift.fromHashAndLength1234.map(() => withLength.next().toString()),
        VECTORS.xorshift.fromHashAndLength1234,
      );
    });

    test("auth_chain_b's two size lists, drawn from the key", () => {
      assert.deepEqual(chainBSizes(hex(VECTORS.chainBSizes.key)), [
        VECTORS.chainBSizes.first,
        VECTORS.chainBSizes.second,
      ]);
    });
  });

  describe('ShadowsocksR presets: our two ends', () => {
    for (const preset of Object.keys(SSR_PROTOCOLS)) {
      for (const method of ['aes-256-ctr', 'none']) {
        test(`${preset} over ${method}: every write size, both ways`, () => {
          const create = prepareChain(CATALOGUE, ssrChain(preset, method), { password: 'round-trip' });
          const target = { host: '127.0.0.1', port: 8080 };
          let serverGot = [];
          let clientGot = [];
          const client = create('client', { target });
          const server = create('server', { onTarget: (address) => assert.deepEqual(address, target) });
          const toServer = server.decoder((data) => serverGot.push(Buffer.from(data)));
          const toClient = client.decoder((data) => clientGot.push(Buffer.from(data)));
          const clientOut = client.encoder((data) => toServer(data));
          const serverOut = server.encoder((data) => toClient(data));
          clientOut(Buffer.alloc(0));
          for (const size of [1, 2, 127, 128, 500, 1439, 1440, 1441, 2800, 2801, 8100, 8101, 40_000, 70_000]) {
            const data = Buffer.alloc(size, size % 251);
            clientOut(data);
            serverOut(data);
            assert.deepEqual(Buffer.concat(serverGot), data, `client -> server, ${size} bytes`);
            assert.deepEqual(Buffer.concat(clientGot), data, `server -> client, ${size} bytes`);
            serverGot = [];
            clientGot = [];
          }
        });
      }
    }
  });

  describe('ShadowsocksR presets: placement', () => {
    const messageOf = (chain) =>
      validateChain(CATALOGUE, chain)
        .map((problem) => problem.message)
        .join('\n');
    test('right after the address preset, and right before ss-stream-cipher', () => {
      assert.deepEqual(validateChain(CATALOGUE, ssrChain('ssr-auth-chain-a', 'none')), []);
      assert.match(
        messageOf([
          { name: 'ss-base' },
          { name: 'ssr-auth-aes128-md5' },
          { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
        ]),
        /followed by ss-stream-cipher/,
      );
      assert.match(messageOf([{ name: 'ss-base' }, { name: 'ssr-auth-chain-b' }]), /followed by ss-stream-cipher/);
      assert.match(
        messageOf([
          { name: 'ss-base' },
          { name: 'ss-stream-cipher', params: { method: 'none' } },
          { name: 'ssr-auth-chain-a' },
        ]),
        /right after the address preset/,
      );
    });
  });
}
