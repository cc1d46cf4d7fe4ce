import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import blinksocks from '../../lib/peers/blinksocks.js';

const ports = { client: 1081, server: 1082, target: 1083 };
const plan = async (presets) => {
  const planned = await blinksocks.plan({ presets }, { ports, key: 'k', found: { blinksocks: '/opt/blinksocks/bin/start.js' } });
  const server = planned.relays.find((relay) => relay.role === 'server');
  const config = JSON.parse(readFileSync(server.args.at(-1), 'utf8'));
  await planned.cleanup();
  return { args: server.args, config };
};

test('any chain of blinksocks presets goes into its config as given, labelled as the reports label ours', async () => {
  const presets = [{ name: 'base-auth', params: { method: 'md5' } }, { name: 'obfs-random-padding' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
  assert.deepEqual(blinksocks.validate({ impl: 'blinksocks', presets }), []);
  assert.equal(blinksocks.label({ presets }), 'blinksocks base-auth(md5) + obfs-random-padding + ss-aead-cipher(aes-256-gcm)');
  assert.equal(blinksocks.label({ presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }] }), 'blinksocks aes-256-ctr');
  const { args, config } = await plan(presets);
  assert.deepEqual(config.presets, presets);
  assert.deepEqual(args.slice(0, 2), ['/opt/blinksocks/bin/start.js', '-c'], 'no flags a chain without RC4 or chacha20-ietf does not need');
});

test('RC4 anywhere starts it with the legacy provider; stream chacha20-ietf with its Node 10 check lifted', async () => {
  const rc4 = await plan([{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'rc4-md5-6' } }]);
  assert.deepEqual(rc4.args.slice(0, 2), ['--openssl-legacy-provider', '/opt/blinksocks/bin/start.js']);
  const chain = await plan([{ name: 'ss-base' }, { name: 'ssr-auth-chain-a' }, { name: 'ss-stream-cipher', params: { method: 'none' } }]);
  assert.equal(chain.args[0], '--openssl-legacy-provider');
  const chacha = await plan([{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'chacha20-ietf' } }]);
  assert.equal(chacha.args[0], '--require');
  assert.match(chacha.args[1], /blinksocks-any-node\.cjs$/);
});

test('a param blinksocks would crash without is refused before it starts', () => {
  const [problem] = blinksocks.validate({ impl: 'blinksocks', presets: [{ name: 'ss-base' }, { name: 'obfs-tls1.2-ticket' }] });
  assert.deepEqual(problem, { field: 'presets[1].params.sni', message: 'missing: blinksocks starts without it and fails at the first connection' });
});
