import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { clientHello } from '../lib/presets/obfs/tls-handshake.js';
import { startEchoServer } from './support/echo-server.js';
import { sendHostile } from '../benchmark/programs/support/hostile.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';

// obfs-tls1.2-ticket's server answers only a ClientHello that names one of
// the chain's sni values. Any other hello gets what any probe gets (no
// answer, a reset at the handshake timeout), or, when the chain names a
// fallback, is carried untouched to that real TLS server (node:tls on
// loopback here, with a self-signed certificate for fallback.test). The
// flight it does send is one a real TLS client reads without calling an
// extension unsolicited.
const KEY = 'obfs-tls-sni-password';
const SNI = 'test.com';
const TIMEOUT_MS = 1000;
const chain = (params = {}) => [
  { name: 'ss-base' },
  { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
  { name: 'obfs-tls1.2-ticket', params: { sni: [SNI, 'www.test.com'], ...params } },
];
const fixture = (name) => readFileSync(new URL(`./fixtures/tls/${name}`, import.meta.url));

// A node:tls client's handshake through host:port: its certificate's
// subject and the echo of `message`, or the error that ended it.
function tlsClient(port, servername, message = 'ping') {
  return new Promise((resolve) => {
    const socket = tls.connect({ port, host: '127.0.0.1', servername, rejectUnauthorized: false });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ error: { code: 'TIMEOUT' } });
    }, 5000);
    socket.on('secureConnect', () => {
      const subject = socket.getPeerCertificate().subject;
      socket.write(message);
      socket.once('data', (data) => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ subject, echo: data.toString() });
      });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      resolve({ error });
    });
  });
}

describe('obfs-tls1.2-ticket answers only its own server names', () => {
  let echo;
  let fallbackServer;
  let fallbackPort;
  let plain;
  let withFallback;
  before(async () => {
    echo = await startEchoServer();
    fallbackServer = tls.createServer(
      { key: fixture('fallback-key.pem'), cert: fixture('fallback-cert.pem') },
      (socket) => socket.pipe(socket),
    );
    await new Promise((resolve) => fallbackServer.listen(0, '127.0.0.1', resolve));
    fallbackPort = fallbackServer.address().port;
    plain = await startRelayServer({
      key: KEY,
      presets: chain(),
      extra: ['--handshake-timeout', String(TIMEOUT_MS / 1000)],
    });
    withFallback = await startRelayServer({
      key: KEY,
      presets: chain({ fallback: `127.0.0.1:${fallbackPort}` }),
      extra: ['--handshake-timeout', String(TIMEOUT_MS / 1000)],
    });
  });
  after(async () => {
    await stopAll();
    await echo?.close();
    fallbackServer?.close();
  });

  test('a hello for another server name, or for none, gets no byte and a reset at the handshake timeout', async () => {
    const withoutName = clientHello(SNI);
    // The same hello with its server_name extension's type made unknown (0x0000 -> 0xfafa).
    const at = withoutName.indexOf(Buffer.concat([Buffer.from('0000000d000b000008', 'hex'), Buffer.from(SNI)]));
    withoutName.writeUInt16BE(0xfafa, at);
    for (const [what, bytes] of [
      ['other.example', clientHello('other.example')],
      ['TEST.COM.evil', clientHello('TEST.COM.evil')],
      ['no server name', withoutName],
    ]) {
      const { how, ms, received } = await sendHostile({ port: plain.port, bytes, timeoutMs: TIMEOUT_MS + 3000 });
      assert.equal(received.length, 0, `${what}: no answer`);
      assert.equal(how, 'reset', what);
      assert.ok(ms >= TIMEOUT_MS - 50, `${what}: reset after ${ms} ms, before the handshake timeout`);
    }
  });

  test('a hello for one of its names is answered; server names match without regard to case', async () => {
    const { received } = await sendHostile({
      port: plain.port,
      bytes: clientHello('WWW.Test.com'),
      timeoutMs: TIMEOUT_MS + 3000,
    });
    assert.ok(received.length > 300, `${received.length} bytes of flight`);
    assert.equal(received[0], 0x16);
  });

  test('a real TLS client (node:tls) with its name reads the flight without "unsolicited extension"', async () => {
    const { error } = await tlsClient(plain.port, SNI);
    // The flight resumes a session this client never had, so its
    // handshake fails; what matters is where.
    assert.ok(error, 'no TLS server behind: the handshake cannot complete');
    assert.notEqual(error.code, 'ERR_SSL_UNSOLICITED_EXTENSION', error.message);
    assert.equal(error.code, 'ERR_SSL_UNEXPECTED_MESSAGE', error.message);
  });

  test('openssl s_client with its name gets past the ServerHello', (t) => {
    if (!requirePrograms(t, 'openssl')) return;
    const run = spawnSync(
      'openssl',
      ['s_client', '-connect', `127.0.0.1:${plain.port}`, '-servername', SNI, '-tls1_2'],
      { input: '', encoding: 'utf8', timeout: 10_000 },
    );
    const output = run.stdout + run.stderr;
    assert.doesNotMatch(output, /unsolicited extension/, output);
    assert.match(output, /SSL handshake has read [1-9]\d\d bytes/, output);
  });

  test('with a fallback, a hello for another name reaches the real TLS server, untouched', async () => {
    const {
      subject,
      echo: answer,
      error,
    } = await tlsClient(withFallback.port, 'other.example', 'through the fallback');
    assert.equal(error, undefined, error?.message);
    assert.equal(subject.CN, 'fallback.test');
    assert.equal(answer, 'through the fallback');
  });

  test("with a fallback, the chain's own clients still get through", async () => {
    await startRelayClient({ serverPort: withFallback.port, forwardPort: echo.port, key: KEY, presets: chain() }).then(
      async (client) => {
        const transfer = await echoTransfer({ port: client.port, size: 1024 * 1024 });
        assert.equal(transfer.returned, transfer.sent);
      },
    );
    assert.match(withFallback.output, /listening on/);
  });

  test('a fallback that is not HOST:PORT is refused before the relay starts', () => {
    for (const fallback of ['127.0.0.1', '127.0.0.1:0', 'host:99999', ':443', 'a b:443']) {
      const run = spawnSync(
        process.execPath,
        [
          new URL('../bin/cipherbench.js', import.meta.url).pathname,
          'relay',
          'server',
          '--listen',
          '127.0.0.1:0',
          '--key',
          KEY,
          '--presets',
          JSON.stringify(chain({ fallback })),
        ],
        { encoding: 'utf8', timeout: 10_000 },
      );
      assert.equal(run.status, 2, run.stderr);
      assert.match(
        run.stderr,
        /^cipherbench: --presets is not a valid chain: presets\[2\]\.params\.fallback: must be HOST:PORT of a TLS server/,
      );
    }
  });
});
