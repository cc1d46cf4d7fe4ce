import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import { after, test } from 'node:test';
import { startProcess, stopAll, CLI } from './support/processes.js';

// `relay server --udp` and `relay client --udp`: what a person can get
// wrong is one line and exit 2 before anything listens; right, the UDP
// relay listens on the TCP one's port number.
const relay = (...args) => spawnSync(process.execPath, [CLI, 'relay', ...args], { encoding: 'utf8', timeout: 20_000 });
const AES = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }]);
const OBFS = JSON.stringify([
  { name: 'ss-base' },
  { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
  { name: 'obfs-http' },
]);
const VMESS = JSON.stringify([
  { name: 'v2ray-vmess', params: { id: 'a3482e88-686a-4a58-8126-99c9df64b7bf', security: 'aes-128-gcm' } },
]);
const SERVER = ['server', '--listen', '127.0.0.1:0', '--key', 'k'];
const CLIENT = [
  'client',
  '--listen',
  '127.0.0.1:0',
  '--server',
  '127.0.0.1:1',
  '--forward',
  '127.0.0.1:2',
  '--key',
  'k',
];
const PROXY = (inbound) => [
  'client',
  '--listen',
  '127.0.0.1:0',
  '--server',
  '127.0.0.1:1',
  '--inbound',
  inbound,
  '--key',
  'k',
];

after(stopAll);

test('--udp with a chain that has no UDP form, and UDP limits out of range: one line, exit 2', () => {
  for (const [args, stderr] of [
    [
      [...SERVER, '--presets', OBFS, '--udp'],
      /^cipherbench: --udp: this chain has no UDP form \(obfs-http carries TCP only\)/,
    ],
    [
      [...CLIENT, '--presets', VMESS, '--udp'],
      /^cipherbench: --udp: this chain has no UDP form \(v2ray-vmess carries TCP only\)/,
    ],
    [
      [...SERVER, '--presets', AES, '--udp', '--udp-timeout', '0'],
      /^cipherbench: --udp-timeout must be a number of seconds from 0\.1/,
    ],
    [[...SERVER, '--presets', AES, '--udp', '--udp-timeout', 'soon'], /^cipherbench: --udp-timeout must be/],
    [
      [...SERVER, '--presets', AES, '--udp', '--udp-max-associations', '0'],
      /^cipherbench: --udp-max-associations must be a whole number from 1/,
    ],
    [
      [...CLIENT, '--presets', AES, '--udp', '--udp-max-associations', '1.5'],
      /^cipherbench: --udp-max-associations must be a whole number/,
    ],
    [
      [...PROXY('http'), '--presets', AES, '--udp'],
      /^cipherbench: --udp goes with --inbound tunnel \(a UDP port forward\) or socks5 \(UDP ASSOCIATE\): an HTTP proxy carries no datagrams$/m,
    ],
    [
      [...PROXY('socks5'), '--presets', OBFS, '--udp'],
      /^cipherbench: --udp: this chain has no UDP form \(obfs-http carries TCP only\)/,
    ],
    [
      [...PROXY('socks5'), '--presets', AES, '--udp', '--udp-timeout', '0'],
      /^cipherbench: --udp-timeout must be a number of seconds from 0\.1/,
    ],
  ]) {
    const { status, stdout, stderr: said } = relay(...args);
    assert.equal(status, 2, `${args.join(' ')}: ${said}`);
    assert.equal(stdout, '');
    assert.match(said, stderr);
    assert.equal(said.trim().split('\n').length, 1, said);
  }
});

test('without --udp, a chain with no UDP form starts as before', async () => {
  const child = await startProcess(process.execPath, [CLI, 'relay', ...SERVER, '--presets', OBFS], {
    ready: /listening on /,
  });
  child.kill('SIGTERM');
  assert.equal((await child.exited).code, 0);
});

test('--udp listens for datagrams on the TCP port number, and refuses what does not open', async () => {
  const child = await startProcess(
    process.execPath,
    [CLI, 'relay', ...SERVER, '--presets', AES, '--udp', '--log-level', 'debug'],
    { ready: /listening on / },
  );
  const port = Number(/listening on \S+:(\d+)/.exec(child.output)[1]);
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve) => socket.send(Buffer.from('not a datagram of this chain'), port, '127.0.0.1', resolve));
  const deadline = Date.now() + 20_000;
  while (!/shorter than a salt and a tag|AEAD tag mismatch/.test(child.output) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  socket.close();
  child.kill('SIGTERM');
  assert.equal((await child.exited).code, 0);
  assert.match(child.output, /udp relay server: 1 datagrams, 0 relayed, 0 replies, 1 refused/);
});
