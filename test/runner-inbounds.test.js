import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { caseIdentity, planPeer } from '../lib/peers/index.js';
import { freeRunPorts } from './support/ports.js';

// What each peer starts for a case's inbound: the relay client's flag, the
// reference's own local program or inbound. The request workload's tests
// and benchmark run them for real; this pins which one each kind gets.
// Nothing listens here; the plans only name the ports.
const PORTS = await freeRunPorts();
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const found = {
  'ss-server': '/usr/bin/ss-server',
  'ss-tunnel': '/usr/bin/ss-tunnel',
  'ss-local': '/usr/bin/ss-local',
  ssserver: 'ssserver',
  sslocal: 'sslocal',
  v2ray: 'v2ray',
};
const client = async (entry) => {
  const plan = await planPeer(caseIdentity(entry), { ports: PORTS, key: 'k', found });
  const relay = plan.relays.find((candidate) => candidate.role === 'client');
  const config = relay.file === 'v2ray' ? JSON.parse(readFileSync(relay.args[1], 'utf8')) : null;
  await plan.cleanup?.();
  return { ...relay, config };
};

test('our relay client: --forward for a tunnel, --inbound socks5 or http otherwise', async () => {
  assert.ok((await client(AES)).args.includes('--forward'));
  for (const [inbound, flag] of [
    ['socks5', 'socks5'],
    ['http-connect', 'http'],
    ['http-proxy', 'http'],
  ]) {
    const { args } = await client({ chain: AES, inbound });
    assert.equal(args[args.indexOf('--inbound') + 1], flag, inbound);
    assert.ok(!args.includes('--forward'), inbound);
  }
  const plain = await client({ impl: 'plain', inbound: 'socks5' });
  assert.equal(plain.args[plain.args.indexOf('--inbound') + 1], 'socks5');
});

test('shadowsocks-libev: ss-local for socks5, ss-tunnel for a tunnel', async () => {
  const local = await client({ impl: 'shadowsocks-libev', method: 'aes-128-gcm', inbound: 'socks5' });
  assert.equal(local.label, 'ss-local');
  assert.ok(!local.args.includes('-L'));
  assert.equal((await client({ impl: 'shadowsocks-libev', method: 'aes-128-gcm' })).label, 'ss-tunnel');
});

test('shadowsocks-rust: sslocal --protocol tunnel, socks or http', async () => {
  for (const [inbound, protocol] of [
    [undefined, 'tunnel'],
    ['socks5', 'socks'],
    ['http-connect', 'http'],
    ['http-proxy', 'http'],
  ]) {
    const { args } = await client({ impl: 'shadowsocks-rust', method: 'aes-128-gcm', ...(inbound ? { inbound } : {}) });
    assert.equal(args[args.indexOf('--protocol') + 1], protocol, String(inbound));
    assert.equal(args.includes('--forward-addr'), protocol === 'tunnel');
  }
});

test('V2Ray: dokodemo-door, socks or http inbound', async () => {
  for (const [inbound, protocol] of [
    [undefined, 'dokodemo-door'],
    ['socks5', 'socks'],
    ['http-connect', 'http'],
    ['http-proxy', 'http'],
  ]) {
    const { config } = await client({ impl: 'v2ray', security: 'aes-128-gcm', ...(inbound ? { inbound } : {}) });
    assert.equal(config.inbounds[0].protocol, protocol, String(inbound));
    assert.equal(config.inbounds[0].port, PORTS.client);
  }
});
