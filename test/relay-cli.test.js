import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { CLI, startRelayServer, stopAll } from './support/processes.js';

const relay = (...args) => spawnSync(process.execPath, [CLI, 'relay', ...args], { encoding: 'utf8', timeout: 10_000 });
const AES = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }]);

describe('relay command: bad input exits 2 before listening', () => {
  const cases = [
    {
      what: 'unknown preset',
      args: ['server', '--listen', '127.0.0.1:24001', '--key', 'k', '--presets', '[{"name":"ss-base"},{"name":"ss-nope"}]'],
      stderr: /presets\[1\]\.name: unknown preset "ss-nope"; valid: ss-base, ss-stream-cipher, ss-aead-cipher/,
    },
    {
      what: 'unknown method',
      args: ['server', '--listen', '127.0.0.1:24001', '--key', 'k', '--presets', '[{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-512-gcm"}}]'],
      stderr: /presets\[1\]\.params\.method: unknown method "aes-512-gcm"; valid: aes-128-gcm, .*xchacha20-ietf-poly1305/,
    },
    {
      what: 'missing params',
      args: ['server', '--listen', '127.0.0.1:24001', '--key', 'k', '--presets', '[{"name":"ss-base"},{"name":"ss-stream-cipher"}]'],
      stderr: /presets\[1\]\.params\.method: missing; valid: aes-128-ctr, .*bf-cfb/,
    },
    { what: 'empty key', args: ['server', '--listen', '127.0.0.1:24001', '--key', '', '--presets', AES], stderr: /--key must not be empty/ },
    { what: 'presets not JSON', args: ['server', '--listen', '127.0.0.1:24001', '--key', 'k', '--presets', '[{'], stderr: /--presets is not valid JSON/ },
    { what: 'chain without ss-base', args: ['server', '--listen', '127.0.0.1:24001', '--key', 'k', '--presets', '[{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]'], stderr: /no address preset: a chain starts with one of ss-base/ },
    { what: 'bad listen address', args: ['server', '--listen', 'localhost:99999', '--key', 'k', '--presets', AES], stderr: /--listen must be HOST:PORT/ },
    {
      what: 'client without --forward',
      args: ['client', '--listen', '127.0.0.1:24001', '--server', '127.0.0.1:24002', '--key', 'k', '--presets', AES],
      stderr: /--forward/,
    },
    {
      what: 'legacy method without the legacy provider',
      args: ['server', '--listen', '127.0.0.1:24001', '--key', 'k', '--presets', '[{"name":"ss-base"},{"name":"ss-stream-cipher","params":{"method":"rc4-md5"}}]'],
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

describe('relay command: lifecycle', () => {
  after(stopAll);

  test('a port in use is named, exit 2', async () => {
    await startRelayServer({ port: 24011, key: 'k', presets: JSON.parse(AES) });
    const result = relay('server', '--listen', '127.0.0.1:24011', '--key', 'k', '--presets', AES);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /cannot listen: .*EADDRINUSE.*127\.0\.0\.1:24011/);
    await stopAll();
  });

  for (const signal of ['SIGINT', 'SIGTERM']) {
    test(`${signal} closes the relay with exit 0`, async () => {
      const child = await startRelayServer({ port: 24012, key: 'k', presets: JSON.parse(AES) });
      assert.match(child.output, /listening on 127\.0\.0\.1:24012/);
      child.kill(signal);
      assert.deepEqual(await child.exited, { code: 0, signal: null });
    });
  }
});
