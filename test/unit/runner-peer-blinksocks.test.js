import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import blinksocks from '../../lib/peers/blinksocks.js';

const ports = { client: 1081, server: 1082, target: 1083 };
const plan = async (presets) => {
  const planned = await blinksocks.plan(
    { presets },
    { ports, key: 'k', found: { blinksocks: '/opt/blinksocks/bin/start.js' } },
  );
  const server = planned.relays.find((relay) => relay.role === 'server');
  const config = JSON.parse(readFileSync(server.args.at(-1), 'utf8'));
  await planned.cleanup();
  return { args: server.args, config };
};

test('any chain of blinksocks presets goes into its config as given, labelled as the reports label ours', async () => {
  const presets = [
    { name: 'base-auth', params: { method: 'md5' } },
    { name: 'obfs-random-padding' },
    { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
  ];
  assert.deepEqual(blinksocks.validate({ impl: 'blinksocks', presets }), []);
  assert.equal(
    blinksocks.label({ presets }),
    'blinksocks base-auth(md5) + obfs-random-padding + ss-aead-cipher(aes-256-gcm)',
  );
  assert.equal(
    blinksocks.label({
      presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }],
    }),
    'blinksocks aes-256-ctr',
  );
  const { args, config } = await plan(presets);
  assert.deepEqual(config.presets, presets);
  assert.deepEqual(
    args.slice(0, 2),
    ['/opt/blinksocks/bin/start.js', '-c'],
    'no flags a chain without RC4 or chacha20-ietf does not need',
  );
});

// blinksocks logs to blinksocks.log in the folder it runs in unless told a
// log_path (test/runner-peer-blinksocks-log.test.js runs a real row): each
// half's log goes beside its config, in the run's own folder, which the
// run's cleanup removes.
test("both halves log into the run's config folder, which cleanup removes", async () => {
  const planned = await blinksocks.plan(
    { presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }] },
    { ports, key: 'k', found: { blinksocks: '/opt/blinksocks/bin/start.js' } },
  );
  const folders = new Set();
  for (const relay of planned.relays) {
    const configFile = relay.args.at(-1);
    const { log_path: logPath } = JSON.parse(readFileSync(configFile, 'utf8'));
    assert.ok(
      typeof logPath === 'string' && path.isAbsolute(logPath),
      `${relay.role}: an absolute log_path, not blinksocks.log in the current folder`,
    );
    assert.equal(path.dirname(logPath), path.dirname(configFile), `${relay.role}: the log beside its config`);
    folders.add(path.dirname(configFile));
  }
  assert.equal(folders.size, 1, 'one folder for the run');
  await planned.cleanup();
  assert.equal(existsSync([...folders][0]), false, 'the folder is gone after cleanup');
});

test('RC4 anywhere starts it with the legacy provider; stream chacha20-ietf with its Node 10 check lifted', async () => {
  const rc4 = await plan([{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'rc4-md5-6' } }]);
  assert.deepEqual(rc4.args.slice(0, 2), ['--openssl-legacy-provider', '/opt/blinksocks/bin/start.js']);
  const chain = await plan([
    { name: 'ss-base' },
    { name: 'ssr-auth-chain-a' },
    { name: 'ss-stream-cipher', params: { method: 'none' } },
  ]);
  assert.equal(chain.args[0], '--openssl-legacy-provider');
  const chacha = await plan([{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'chacha20-ietf' } }]);
  assert.equal(chacha.args[0], '--require');
  assert.match(chacha.args[1], /blinksocks-any-node\.cjs$/);
});

test('a param blinksocks would crash without is refused before it starts', () => {
  const [problem] = blinksocks.validate({
    impl: 'blinksocks',
    presets: [{ name: 'ss-base' }, { name: 'obfs-tls1.2-ticket' }],
  });
  assert.deepEqual(problem, {
    field: 'presets[1].params.sni',
    message: 'missing: blinksocks starts without it and fails at the first connection',
  });
});
