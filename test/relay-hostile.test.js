import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { startEchoServer } from './support/echo-server.js';
import { chainFor, clientBytes, sealedLength, sendHostile } from './support/hostile.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { echoTransfer } from './support/transfer.js';

// A relay server under hostile input: each bad connection is closed for the
// right reason (read from its debug log), while a valid connection opened
// before the attack keeps flowing and the process stays up without a trace.
const KEY = 'hostile-test-password';
const SERVER = 24101;
const CLIENT = 24102;

const hostile = (bytes, options = {}) => sendHostile({ port: SERVER, bytes, ...options });

for (const method of ['aes-256-gcm', 'aes-256-ctr']) {
  describe(`relay server under hostile input (${method})`, () => {
    let echo;
    let server;
    let steady;
    const target = () => ({ host: '127.0.0.1', port: echo.port });

    before(async () => {
      echo = await startEchoServer();
      [server] = await Promise.all([
        startRelayServer({ port: SERVER, key: KEY, presets: chainFor(method), extra: ['--log-level', 'debug', '--handshake-timeout', '1'] }),
        startRelayClient({ port: CLIENT, serverPort: SERVER, forwardPort: echo.port, key: KEY, presets: chainFor(method) }),
      ]);
      steady = net.connect({ port: CLIENT, host: '127.0.0.1' });
      await new Promise((resolve) => steady.once('connect', resolve));
    });
    after(async () => {
      steady?.destroy();
      await stopAll();
      await echo?.close();
    });

    const expectClosed = async (bytes, reason, options) => {
      const before = server.output.length;
      await hostile(bytes, options);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(server.output.slice(before), reason);
    };

    if (AEAD_METHODS[method]) {
      test('wrong key', () => expectClosed(clientBytes({ method, password: 'not-the-key', target: target() }), /tag mismatch/));
      test('one flipped bit in a tag', () => {
        const bytes = clientBytes({ method, password: KEY, target: target() });
        bytes[bytes.length - 1] ^= 0x10;
        return expectClosed(bytes, /tag mismatch/);
      });
      test('a length field over 0x3FFF', () => expectClosed(sealedLength({ method, password: KEY, length: 0x4000 }), /chunk length 16384 exceeds 0x3FFF/));
      test('a valid salt followed by garbage', () => expectClosed(Buffer.concat([randomBytes(32), randomBytes(200)]), /tag mismatch/));
    } else {
      test('a wrong key reads as a garbage address type', () =>
        expectClosed(clientBytes({ method, password: 'not-the-key', target: target() }), /unknown address type|refused target|second address header|empty domain/));
    }
    test('a target that is not on loopback', () =>
      expectClosed(clientBytes({ method, password: KEY, target: { host: '10.1.2.3', port: 80 } }), /refused target 10\.1\.2\.3:80: not loopback/));
    test('a truncated stream', () => expectClosed(clientBytes({ method, password: KEY, target: target() }).subarray(0, 20), /./, { end: true }));
    test('one byte, then a stall: cut by the handshake timeout', async () => {
      const before = server.output.length;
      const { ms } = await hostile(Buffer.from([1]), { timeoutMs: 4000 });
      assert.ok(ms >= 900 && ms < 3000, `closed after ${ms} ms, handshake timeout is 1 s`);
      assert.match(server.output.slice(before), /no address header within 1000 ms/);
    });
    test('random bytes of random length, 200 connections', async () => {
      await Promise.all(Array.from({ length: 200 }, () => hostile(randomBytes(1 + Math.floor(Math.random() * 4096)), { end: true })));
    });

    test('afterwards: the process is up, printed no stack, and the steady connection still flows', async () => {
      assert.equal(server.exitCode, null, 'relay server still running');
      assert.doesNotMatch(server.output, /\n\s+at |Uncaught|TypeError|RangeError/);
      const payload = randomBytes(1024 * 1024);
      const back = [];
      let length = 0;
      await new Promise((resolve, reject) => {
        steady.on('data', (data) => {
          back.push(data);
          length += data.length;
          if (length >= payload.length) resolve();
        });
        steady.on('error', reject);
        steady.write(payload);
      });
      assert.deepEqual(Buffer.concat(back), payload);
      const fresh = await echoTransfer({ port: CLIENT, size: 8 * 1024 * 1024 });
      assert.equal(fresh.returned, fresh.sent);
    });
  });
}
