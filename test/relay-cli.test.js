import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { CATALOGUE } from '../lib/presets/index.js';
import { RELAY_NODE_FLAGS } from '../lib/relay/node-flags.js';
import { descendants } from '../benchmark/programs/support/proc-stats.js';
import { isAlive, isRunning } from './support/process-tree.js';
import { which } from './support/programs.js';
import { CLI, startProcess, startRelayServer, stopAll } from './support/processes.js';

const relay = (...args) => spawnSync(process.execPath, [CLI, 'relay', ...args], { encoding: 'utf8', timeout: 10_000 });
const AES = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }]);
// A client and a server that would start but for the mistake a row adds.
const CLIENT = ['client', '--listen', '127.0.0.1:0', '--server', '127.0.0.1:9', '--key', 'k', '--presets', AES];
const SERVER = ['server', '--listen', '127.0.0.1:0', '--key', 'k'];

describe('relay command: bad input exits 2 before listening', () => {
  const cases = [
    {
      what: 'unknown preset',
      args: ['server', '--listen', '127.0.0.1:0', '--key', 'k', '--presets', '[{"name":"ss-base"},{"name":"ss-nope"}]'],
      stderr: new RegExp(`presets\\[1\\]\\.name: unknown preset "ss-nope"; valid: ${CATALOGUE.names.join(', ')}\n`),
    },
    {
      what: 'unknown method',
      args: [
        ...SERVER,
        '--presets',
        '[{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-512-gcm"}}]',
      ],
      stderr:
        /presets\[1\]\.params\.method: unknown method "aes-512-gcm" \(did you mean "aes-128-gcm"\?\); valid: aes-128-gcm, .*xchacha20-ietf-poly1305/,
    },
    {
      what: 'missing params',
      args: [...SERVER, '--presets', '[{"name":"ss-base"},{"name":"ss-stream-cipher"}]'],
      stderr: /presets\[1\]\.params\.method: missing; valid: aes-128-ctr, .*bf-cfb/,
    },
    {
      what: 'empty key',
      args: ['server', '--listen', '127.0.0.1:0', '--key', '', '--presets', AES],
      stderr: /--key must not be empty/,
    },
    {
      what: 'presets not JSON',
      args: ['server', '--listen', '127.0.0.1:0', '--key', 'k', '--presets', '[{'],
      stderr: /--presets is not valid JSON/,
    },
    {
      what: 'chain without ss-base',
      args: [...SERVER, '--presets', '[{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]'],
      stderr: /no address preset: a chain starts with one of ss-base/,
    },
    {
      what: 'bad listen address',
      args: ['server', '--listen', 'localhost:99999', '--key', 'k', '--presets', AES],
      stderr: /--listen must be HOST:PORT/,
    },
    {
      what: 'client without --forward',
      args: ['client', '--listen', '127.0.0.1:0', '--server', '127.0.0.1:9', '--key', 'k', '--presets', AES],
      stderr: /--forward/,
    },
    {
      what: 'an unknown inbound',
      args: [...CLIENT, '--inbound', 'socks4'],
      stderr: /^cipherbench: --inbound: unknown kind "socks4"; valid: tunnel, socks5, http\n$/,
    },
    {
      what: '--forward with an inbound that asks the application',
      args: [...CLIENT, '--inbound', 'socks5', '--forward', '127.0.0.1:9'],
      stderr:
        /^cipherbench: --forward goes with --inbound tunnel; with --inbound socks5 each application names its target\n$/,
    },
    {
      what: '--inbound-user without --inbound-password',
      args: [...CLIENT, '--inbound', 'http', '--inbound-user', 'alice'],
      stderr: /^cipherbench: give --inbound-user and --inbound-password together\n$/,
    },
    {
      what: 'a username on a tunnel',
      args: [...CLIENT, '--forward', '127.0.0.1:9', '--inbound-user', 'a', '--inbound-password', 'b'],
      stderr: /^cipherbench: --inbound-user goes with --inbound socks5 or http/,
    },
    {
      what: 'a username over 255 bytes',
      args: [...CLIENT, '--inbound', 'socks5', '--inbound-user', 'a'.repeat(256), '--inbound-password', 'b'],
      stderr: /^cipherbench: --inbound-user must be 1 to 255 bytes, got 256\n$/,
    },
    {
      what: 'legacy method without the legacy provider',
      args: [...SERVER, '--presets', '[{"name":"ss-base"},{"name":"ss-stream-cipher","params":{"method":"rc4-md5"}}]'],
      stderr: /needs OpenSSL's legacy provider .*--openssl-legacy-provider/,
    },
  ];
  for (const { what, args, stderr } of cases) {
    test(what, () => {
      const result = relay(...args);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, stderr);
      assert.doesNotMatch(result.stdout, /listening on/);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    });
  }
});

// Inputs that printed a stack trace, threw a TypeError or were silently
// turned into 1 ms before issue 13: each is one line on stderr and exit 2.
describe('relay server: every mistaken input is one line and exit 2', () => {
  const STREAM = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }]);
  const server = (...extra) => ['server', '--listen', '127.0.0.1:0', '--key', 'k', '--presets', AES, ...extra];
  const timeoutMessage = (flag) =>
    new RegExp(`^cipherbench: ${flag} must be a number of seconds from 0\\.1 to 86400 \\(one day\\)`);
  const cases = [
    {
      what: '--listen 256.1.1.1:7802',
      args: ['server', '--listen', '256.1.1.1:7802', '--key', 'k', '--presets', AES],
      stderr: /^cipherbench: --listen must be HOST:PORT/,
    },
    {
      what: 'an unresolvable --listen host',
      args: ['server', '--listen', 'no-such-host.invalid:7802', '--key', 'k', '--presets', AES],
      stderr: /^cipherbench: cannot listen: getaddrinfo \w+ no-such-host\.invalid/,
    },
    ...['3000000', 'Infinity', '1e-9', '0', '-1', 'NaN', 'soon'].map((value) => ({
      what: `--handshake-timeout ${value}`,
      args: server('--handshake-timeout', value),
      stderr: timeoutMessage('--handshake-timeout'),
    })),
    ...['0x10', ' 5 ', '5 ', '1e1', '+5', '.5', '5.'].map((value) => ({
      what: `--handshake-timeout ${JSON.stringify(value)}: decimal digits only`,
      args: server('--handshake-timeout', value),
      stderr: timeoutMessage('--handshake-timeout'),
    })),
    ...['0', '86401', 'Infinity', ' 5 ', '0x10'].map((value) => ({
      what: `--idle-timeout ${JSON.stringify(value)}`,
      args: server('--idle-timeout', value),
      stderr: timeoutMessage('--idle-timeout'),
    })),
    ...['0', '1.5', '1e7', 'many', '0x10', ' 16', '16 ', '+16', '1_000'].map((value) => ({
      what: `--max-connections ${value}`,
      args: server('--max-connections', value),
      stderr: /^cipherbench: --max-connections must be a whole number from 1 to 1000000/,
    })),
    ...['__proto__', 'toString', 'constructor', 'hasOwnProperty'].map((name) => ({
      what: `a preset named ${name}`,
      args: ['server', '--listen', '127.0.0.1:0', '--key', 'k', '--presets', JSON.stringify([{ name }])],
      stderr: new RegExp(
        `^cipherbench: --presets is not a valid chain: presets\\[0\\]\\.name: unknown preset "${name}"`,
      ),
    })),
    {
      what: 'a parameter named __proto__',
      args: [...SERVER, '--presets', '[{"name":"ss-base","params":{"__proto__":{"x":1}}}]'],
      stderr:
        /^cipherbench: --presets is not a valid chain: presets\[0\]\.params\.__proto__: ss-base takes no parameter "__proto__"/,
    },
    {
      what: 'a second cipher preset',
      args: [...SERVER, '--presets', JSON.stringify([...JSON.parse(AES), JSON.parse(STREAM)[1]])],
      stderr:
        /^cipherbench: --presets is not a valid chain: presets\[2\]\.name: a second cipher preset \(ss-stream-cipher after ss-aead-cipher\): a chain encrypts once/,
    },
    {
      what: 'an obfs-http template that is not a regular file (/dev/zero)',
      args: [
        ...SERVER,
        '--presets',
        JSON.stringify([...JSON.parse(AES), { name: 'obfs-http', params: { file: '/dev/zero' } }]),
      ],
      stderr:
        /^cipherbench: --presets is not a valid chain: presets\[2\]\.params\.file: \/dev\/zero is not a regular file/,
    },
    {
      what: 'a chain with two problems: both named, on one line',
      args: [
        ...SERVER,
        '--presets',
        '[{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-512-gcm"}},{"name":"ss-nope"}]',
      ],
      stderr:
        /^cipherbench: --presets is not a valid chain: presets\[1\]\.params\.method: unknown method "aes-512-gcm".*; and presets\[2\]\.name: unknown preset "ss-nope"/,
    },
    {
      what: 'a stream cipher beyond loopback without --allow-unauthenticated',
      args: ['server', '--listen', '0.0.0.0:0', '--key', 'k', '--presets', STREAM],
      stderr:
        /^cipherbench: --listen 0\.0\.0\.0:0 is not loopback and this chain is unauthenticated .*pass --allow-unauthenticated/,
    },
  ];
  for (const { what, args, stderr } of cases) {
    test(what, () => {
      const result = relay(...args);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, stderr);
      assert.equal(result.stderr.trimEnd().split('\n').length, 1, `one line: ${result.stderr}`);
      assert.doesNotMatch(result.stdout, /listening on/);
    });
  }

  test('a stream cipher beyond loopback with --allow-unauthenticated starts', async () => {
    const child = await startProcess(
      process.execPath,
      [CLI, 'relay', 'server', '--listen', '0.0.0.0:0', '--key', 'k', '--presets', STREAM, '--allow-unauthenticated'],
      {
        ready: /listening on/,
      },
    );
    child.kill('SIGTERM');
    assert.deepEqual(await child.exited, { code: 0, signal: null });
  });
});

describe('relay command: lifecycle', () => {
  after(stopAll);

  test('a port in use is named, exit 2', async () => {
    const { port } = await startRelayServer({ key: 'k', presets: JSON.parse(AES) });
    const result = relay('server', '--listen', `127.0.0.1:${port}`, '--key', 'k', '--presets', AES);
    assert.equal(result.status, 2);
    assert.match(result.stderr, new RegExp(`cannot listen: .*EADDRINUSE.*127\\.0\\.0\\.1:${port}`));
    await stopAll();
  });

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    test(`${signal} closes the relay with exit 0`, async () => {
      const child = await startRelayServer({ key: 'k', presets: JSON.parse(AES) });
      assert.match(child.output, new RegExp(`listening on 127\\.0\\.0\\.1:${child.port}\n`));
      assert.ok(child.port > 0, 'port 0 is read back as the port the OS gave');
      child.kill(signal);
      assert.deepEqual(await child.exited, { code: 0, signal: null });
    });
  }
});

// A relay started by hand, as the README shows it (no Node flags), runs
// with the memory flags the runner gives its relays: the bin starts it
// again in a node that has them, and is transparent about it.
describe("relay command: started by hand, with the relay's node flags", () => {
  after(stopAll);
  const byHand = (env = {}) => {
    const { NODE_OPTIONS, ...rest } = process.env;
    return startProcess(
      process.execPath,
      [CLI, 'relay', 'server', '--listen', '127.0.0.1:0', '--key', 'k', '--presets', AES],
      { ready: /listening on/, env: { ...rest, ...env }, detached: true },
    );
  };
  const commandLine = (pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

  for (const [signal, how] of [
    ['SIGTERM', 'to it'],
    ['SIGINT', 'to its group, as Ctrl-C'],
    ['SIGHUP', 'to its group, as a closing terminal'],
  ]) {
    test(`the relay runs with ${RELAY_NODE_FLAGS.join(' ')}; ${signal} ${how} ends both with exit 0`, async () => {
      const wrapper = await byHand();
      const [relayPid, ...others] = descendants(wrapper.pid);
      assert.deepEqual(others, [], 'one relay process');
      assert.ok(
        RELAY_NODE_FLAGS.every((flag) => commandLine(relayPid).includes(flag)),
        `flags: ${commandLine(relayPid).join(' ')}`,
      );
      process.kill(how === 'to it' ? wrapper.pid : -wrapper.pid, signal);
      assert.deepEqual(await wrapper.exited, { code: 0, signal: null });
      assert.ok(!isAlive(relayPid), 'the relay is gone');
    });
  }

  test('flags the person gave are kept: only the missing ones are added', async () => {
    const wrapper = await byHand({ NODE_OPTIONS: '--max-semi-space-size=8' });
    const [relayPid] = descendants(wrapper.pid);
    const flags = commandLine(relayPid);
    assert.ok(flags.includes('--no-concurrent-recompilation'), `flags: ${flags.join(' ')}`);
    assert.ok(!flags.some((flag) => flag.startsWith('--max-semi-space-size')), `flags: ${flags.join(' ')}`);
    wrapper.kill('SIGTERM');
    assert.deepEqual(await wrapper.exited, { code: 0, signal: null });
  });

  test('with every flag given, no second process is started', async () => {
    const relay = await startProcess(
      process.execPath,
      [...RELAY_NODE_FLAGS, CLI, 'relay', 'server', '--listen', '127.0.0.1:0', '--key', 'k', '--presets', AES],
      { ready: /listening on/ },
    );
    assert.deepEqual(descendants(relay.pid), []);
    relay.kill('SIGTERM');
    assert.deepEqual(await relay.exited, { code: 0, signal: null });
  });

  test('the wrapper killed outright takes the relay with it', async (t) => {
    if (!which('setpriv')) return t.skip('needs setpriv (util-linux)');
    const wrapper = await byHand();
    const [relayPid] = descendants(wrapper.pid);
    assert.ok(relayPid, 'the relay runs in a child');
    wrapper.kill('SIGKILL');
    await wrapper.exited;
    const deadline = Date.now() + 3000;
    while (isRunning(relayPid) && Date.now() < deadline) await delay(20);
    assert.ok(!isRunning(relayPid), 'the relay died with it');
  });
});
