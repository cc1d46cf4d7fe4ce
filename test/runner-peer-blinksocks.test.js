import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import blinksocks from '../lib/peers/blinksocks.js';
import { locatePeer } from '../lib/peers/index.js';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';

const ports = { client: 1081, server: 1082, target: 1083 };
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
// Where .ci/run installs blinksocks; a person may point elsewhere.
const BLINKSOCKS = process.env.CIPHERBENCH_BLINKSOCKS ?? fileURLToPath(new URL('../.ci/peers', import.meta.url));
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

// blinksocks writes its log beside the path it is given, and into the folder
// it runs in when given none: a row run from a person's checkout must leave
// nothing there. A real row, run as a person runs it, in an empty folder.
test('a blinksocks row leaves no log file in the folder cipherbench runs in', { timeout: 60_000 }, async (t) => {
  const { reason } = await locatePeer({ impl: 'blinksocks', presets: GCM }, { env: { CIPHERBENCH_BLINKSOCKS: BLINKSOCKS } });
  if (reason) {
    const message = `needs blinksocks 3 (npm install --prefix .ci/peers --no-save blinksocks@3.3.0): ${reason}`;
    if (process.env.CI === 'true') throw new Error(message);
    t.skip(message);
    return;
  }
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify([{ impl: 'blinksocks', presets: GCM }]));
  const args = ['run', 'cases.json', '--duration', '1', '--engine', 'node', '--no-ceiling', '--no-noise-floor', '--no-archive', ...(await freePortsFlag())];
  const { code, stdout, stderr } = await runCli(args, { cwd, env: { CIPHERBENCH_BLINKSOCKS: BLINKSOCKS } });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /blinksocks aes-256-gcm/);
  assert.doesNotMatch(stdout, /skipped|failed/i, stdout);
  assert.deepEqual(readdirSync(cwd), ['cases.json']);
});
