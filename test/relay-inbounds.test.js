import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { startRelayClient } from '../lib/relay/client.js';
import { createLog } from '../lib/relay/log.js';
import { startRelayServer } from '../lib/relay/server.js';
import { freePort } from './support/ports.js';
import { requirePrograms } from './support/programs.js';
import { startProcess, startSsLocal, startSsServer, stopAll } from './support/processes.js';
import { sha256 } from '../benchmark/programs/support/transfer.js';
import { CATALOGUE } from '../lib/presets/index.js';

// The relay client's SOCKS5 and HTTP inbounds, with curl as the
// application: a 1 MiB body from a loopback HTTP server arrives whole
// through each kind (and through ss-local and sslocal, the references), and
// every malformed greeting or request gets its protocol's refusal, one log
// line, and leaves the client serving the next connection.
const run = promisify(execFile);
const KEY = 'inbound-test-key';
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const BODY = randomBytes(1 << 20);

let origin;
let relayServer;
const clients = {};
const logged = [];
const log = createLog('info', (line) => logged.push(line));

before(async () => {
  origin = http.createServer((request, response) => {
    response.setHeader('content-length', BODY.length);
    response.end(BODY);
  });
  await new Promise((resolve) => origin.listen(0, '127.0.0.1', resolve));
  relayServer = await startRelayServer({
    listen: { host: '127.0.0.1', port: 0 },
    password: KEY,
    catalogue: CATALOGUE,
    presets: AES,
    log,
  });
  const server = relayServer.address;
  const start = (inbound, inboundAuth = null, to = server) =>
    startRelayClient({
      listen: { host: '127.0.0.1', port: 0 },
      server: to,
      password: KEY,
      catalogue: CATALOGUE,
      presets: AES,
      log,
      inbound,
      inboundAuth,
    });
  clients.socks5 = await start('socks5');
  clients.http = await start('http');
  const auth = { user: Buffer.from('alice'), password: Buffer.from('s3cret') };
  clients.socks5Auth = await start('socks5', auth);
  clients.httpAuth = await start('http', auth);
  // A relay server that is not there: nothing listens on a freed port.
  const nowhere = { host: '127.0.0.1', port: await freePort() };
  clients.socks5Nowhere = await start('socks5', null, nowhere);
  clients.httpNowhere = await start('http', null, nowhere);
});

after(async () => {
  await Promise.all(Object.values(clients).map((client) => client.close()));
  await relayServer?.close();
  origin?.close();
  await stopAll();
});

const url = () => `http://127.0.0.1:${origin.address().port}/body`;
const proxy = (client) => `127.0.0.1:${client.address.port}`;

// curl's body on stdout, as bytes; two URLs fetch twice on one connection
// where keep-alive holds (-w reports the connections it opened).
async function curl(args) {
  const { stdout } = await run('curl', ['--silent', '--show-error', '--fail', '--max-time', '60', ...args], {
    encoding: 'buffer',
    maxBuffer: 8 << 20,
  });
  return stdout;
}

describe('curl through our relay client fetches 1 MiB intact', () => {
  const kinds = [
    { what: 'SOCKS5 (--socks5-hostname)', args: () => ['--socks5-hostname', proxy(clients.socks5)] },
    { what: 'SOCKS5 with an IP address (--socks5)', args: () => ['--socks5', proxy(clients.socks5)] },
    { what: 'HTTP CONNECT (-x --proxytunnel)', args: () => ['-x', `http://${proxy(clients.http)}`, '--proxytunnel'] },
    { what: 'HTTP plain proxying (-x)', args: () => ['-x', `http://${proxy(clients.http)}`] },
    {
      what: 'SOCKS5 with username and password',
      args: () => ['--socks5-hostname', proxy(clients.socks5Auth), '--proxy-user', 'alice:s3cret'],
    },
    {
      what: 'HTTP with Proxy-Authorization',
      args: () => ['-x', `http://${proxy(clients.httpAuth)}`, '--proxy-user', 'alice:s3cret'],
    },
  ];
  for (const { what, args } of kinds) {
    test(what, async (t) => {
      if (!requirePrograms(t, 'curl')) return;
      assert.equal(sha256(await curl([...args(), url()])), sha256(BODY));
    });
  }

  for (const { what, args } of [
    { what: 'HTTP plain', args: () => ['-x', `http://${proxy(clients.http)}`] },
    { what: 'HTTP CONNECT', args: () => ['-x', `http://${proxy(clients.http)}`, '--proxytunnel'] },
  ]) {
    test(`${what}: two requests on one kept-alive connection`, async (t) => {
      if (!requirePrograms(t, 'curl')) return;
      const out = await curl([...args(), url(), url(), '-o', '/dev/null', '-o', '/dev/null', '-w', '%{num_connects} ']);
      assert.equal(String(out).trim(), '1 0');
    });
  }

  test('HTTP plain: the host may change between requests on one connection', async (t) => {
    if (!requirePrograms(t, 'curl')) return;
    const other = `http://localhost:${origin.address().port}/body`;
    const out = await curl(['-x', `http://${proxy(clients.http)}`, url(), other, url()]);
    assert.equal(sha256(out), sha256(Buffer.concat([BODY, BODY, BODY])));
  });
});

describe('curl through the references fetches the same 1 MiB', () => {
  test('shadowsocks-libev ss-local (SOCKS5)', async (t) => {
    if (!requirePrograms(t, 'curl', 'ss-server', 'ss-local')) return;
    const [serverPort, localPort] = [await freePort(), await freePort()];
    await startSsServer({ port: serverPort, key: KEY, method: 'aes-128-gcm' });
    await startSsLocal({ port: localPort, serverPort, key: KEY, method: 'aes-128-gcm' });
    assert.equal(sha256(await curl(['--socks5-hostname', `127.0.0.1:${localPort}`, url()])), sha256(BODY));
  });

  test('our relay client (SOCKS5) to ss-server, and ss-local to our relay server', async (t) => {
    if (!requirePrograms(t, 'curl', 'ss-server', 'ss-local')) return;
    const [serverPort, localPort] = [await freePort(), await freePort()];
    await startSsServer({ port: serverPort, key: KEY, method: 'aes-128-gcm' });
    const ours = await startRelayClient({
      listen: { host: '127.0.0.1', port: 0 },
      server: { host: '127.0.0.1', port: serverPort },
      password: KEY,
      catalogue: CATALOGUE,
      presets: AES,
      log,
      inbound: 'socks5',
    });
    try {
      assert.equal(sha256(await curl(['--socks5-hostname', proxy(ours), url()])), sha256(BODY));
    } finally {
      await ours.close();
    }
    await startSsLocal({ port: localPort, serverPort: relayServer.address.port, key: KEY, method: 'aes-128-gcm' });
    assert.equal(sha256(await curl(['--socks5-hostname', `127.0.0.1:${localPort}`, url()])), sha256(BODY));
  });

  for (const { kind, args } of [
    { kind: 'socks', args: (port) => ['--socks5-hostname', `127.0.0.1:${port}`] },
    { kind: 'http', args: (port) => ['-x', `http://127.0.0.1:${port}`] },
  ]) {
    test(`shadowsocks-rust sslocal --protocol ${kind}`, async (t) => {
      if (!requirePrograms(t, 'curl', 'ssserver', 'sslocal')) return;
      const [serverPort, localPort] = [await freePort(), await freePort()];
      await startProcess('ssserver', ['-s', `127.0.0.1:${serverPort}`, '-k', KEY, '-m', 'aes-128-gcm'], {
        ready: /./,
        listening: serverPort,
      });
      await startProcess(
        'sslocal',
        [
          '--protocol',
          kind,
          '-b',
          `127.0.0.1:${localPort}`,
          '-s',
          `127.0.0.1:${serverPort}`,
          '-k',
          KEY,
          '-m',
          'aes-128-gcm',
        ],
        { ready: /./, listening: localPort },
      );
      assert.equal(sha256(await curl([...args(localPort), url()])), sha256(BODY));
    });
  }
});

// Writes `bytes`, then resolves with everything the client sent back by
// the time it closed the connection.
function exchange(client, bytes, { timeoutMs = 20_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: client.address.port });
    const parts = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${Buffer.concat(parts).toString('latin1')}`));
    }, timeoutMs);
    socket.on('data', (data) => parts.push(data));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(parts));
    });
    socket.write(bytes);
  });
}

// The one line a refusal logs, and proof the client still serves.
async function refusedOnce(client, pattern, check) {
  const before = logged.length;
  await check();
  const lines = logged.slice(before).filter((line) => pattern.test(line));
  assert.equal(lines.length, 1, `one log line matching ${pattern}; got ${JSON.stringify(logged.slice(before))}`);
  const good = client === clients.socks5 ? ['--socks5-hostname', proxy(client)] : ['-x', `http://${proxy(client)}`];
  assert.equal(sha256(await curl([...good, url()])), sha256(BODY), 'the client still serves after a refusal');
}

const bytes = (...values) => Buffer.from(values);

describe('SOCKS5 inbound: malformed greetings and requests get RFC 1928 refusals', () => {
  const target = [127, 0, 0, 1, 0, 80];
  const cases = [
    {
      what: 'a SOCKS4 greeting: closed without a reply',
      send: bytes(4, 1, 0, 80, 127, 0, 0, 1, 0),
      reply: bytes(),
      log: /socks5: not SOCKS5 \(version byte 4\); refused/,
    },
    {
      what: 'an HTTP request on the SOCKS port',
      send: Buffer.from('GET / HTTP/1.1\r\n\r\n'),
      reply: bytes(),
      log: /socks5: not SOCKS5 \(version byte 71\)/,
    },
    {
      what: "no acceptable method: X'FF'",
      send: bytes(5, 1, 2),
      reply: bytes(5, 0xff),
      log: /no acceptable method \(offered 2, no authentication required\)/,
    },
    { what: 'no methods at all', send: bytes(5, 0), reply: bytes(5, 0xff), log: /no acceptable method \(offered none/ },
    {
      what: 'BIND: command not supported (7)',
      send: bytes(5, 1, 0, 5, 2, 0, 1, ...target),
      reply: bytes(5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0),
      log: /command 2 not supported/,
    },
    {
      what: 'UDP ASSOCIATE: command not supported (7)',
      send: bytes(5, 1, 0, 5, 3, 0, 1, ...target),
      reply: bytes(5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0),
      log: /command 3 not supported/,
    },
    {
      what: 'address type 9: not supported (8)',
      send: bytes(5, 1, 0, 5, 1, 0, 9, 1, 2, 3),
      reply: bytes(5, 0, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0),
      log: /unknown address type 9/,
    },
    {
      what: 'an empty domain name (8)',
      send: bytes(5, 1, 0, 5, 1, 0, 3, 0, 0, 80),
      reply: bytes(5, 0, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0),
      log: /empty domain name/,
    },
    {
      what: 'a request of version 4 (general failure, 1)',
      send: bytes(5, 1, 0, 4, 1, 0, 1, ...target),
      reply: bytes(5, 0, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0),
      log: /request version byte 4/,
    },
  ];
  for (const { what, send, reply, log: pattern } of cases) {
    test(what, async (t) => {
      if (!requirePrograms(t, 'curl')) return;
      await refusedOnce(clients.socks5, pattern, async () =>
        assert.deepEqual(await exchange(clients.socks5, send), reply),
      );
    });
  }

  test("username/password: a wrong one gets X'01' and a close; no method 2 offered gets X'FF'", async () => {
    assert.deepEqual(
      await exchange(clients.socks5Auth, bytes(5, 1, 2, 1, 5, ...Buffer.from('alice'), 5, ...Buffer.from('wrong'))),
      bytes(5, 2, 1, 1),
    );
    assert.deepEqual(await exchange(clients.socks5Auth, bytes(5, 1, 0)), bytes(5, 0xff));
    assert.ok(logged.some((line) => /socks5: wrong username or password; refused/.test(line)));
  });

  test('an unreachable relay server: connection refused (5)', async () => {
    assert.deepEqual(
      await exchange(clients.socks5Nowhere, bytes(5, 1, 0, 5, 1, 0, 1, ...target)),
      bytes(5, 0, 5, 5, 0, 1, 0, 0, 0, 0, 0, 0),
    );
  });
});

describe('HTTP inbound: malformed requests get their status, then a close', () => {
  const status = (reply) => /^HTTP\/1\.1 (\d{3}) /.exec(reply.toString('latin1'))?.[1];
  const cases = [
    { what: 'garbage', send: 'GARBAGE\r\n\r\n', status: '400', log: /http: 400 malformed request line "GARBAGE"/ },
    {
      what: 'a bad header line',
      send: 'GET http://127.0.0.1/ HTTP/1.1\r\nno colon here\r\n\r\n',
      status: '400',
      log: /400 malformed header line/,
    },
    {
      what: 'origin form, as to a web server',
      send: 'GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n',
      status: '400',
      log: /400 GET "\/index.html": a proxy takes an absolute http:\/\/ URI/,
    },
    {
      what: 'an https:// absolute URI',
      send: 'GET https://127.0.0.1/ HTTP/1.1\r\n\r\n',
      status: '400',
      log: /400 GET "https:/,
    },
    {
      what: 'CONNECT without a port',
      send: 'CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n',
      status: '400',
      log: /400 CONNECT to "127.0.0.1"/,
    },
    { what: 'HTTP/2.0', send: 'GET http://127.0.0.1/ HTTP/2.0\r\n\r\n', status: '505', log: /505 HTTP\/2.0/ },
    {
      what: 'two Content-Lengths that differ',
      send: 'POST http://127.0.0.1/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      status: '400',
      log: /400 bad Content-Length/,
    },
    {
      what: 'a chunked request body',
      send: 'POST http://127.0.0.1/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n',
      status: '501',
      log: /501 Transfer-Encoding/,
    },
    {
      what: 'a head over 16 KiB',
      send: `GET http://127.0.0.1/ HTTP/1.1\r\nX: ${'a'.repeat(17_000)}\r\n\r\n`,
      status: '431',
      log: /431 request head over 16384 bytes/,
    },
  ];
  for (const { what, send, status: expected, log: pattern } of cases) {
    test(what, async (t) => {
      if (!requirePrograms(t, 'curl')) return;
      await refusedOnce(clients.http, pattern, async () =>
        assert.equal(status(await exchange(clients.http, Buffer.from(send))), expected),
      );
    });
  }

  test('without Proxy-Authorization: 407 with a Basic challenge', async () => {
    const reply = (await exchange(clients.httpAuth, Buffer.from(`GET ${url()} HTTP/1.1\r\n\r\n`))).toString('latin1');
    assert.match(reply, /^HTTP\/1\.1 407 /);
    assert.match(reply, /\r\nProxy-Authenticate: Basic realm="cipherbench"\r\n/);
  });

  test('an unreachable relay server: 502, for CONNECT and for a plain request', async () => {
    assert.equal(
      status(await exchange(clients.httpNowhere, Buffer.from('CONNECT 127.0.0.1:80 HTTP/1.1\r\n\r\n'))),
      '502',
    );
    assert.equal(status(await exchange(clients.httpNowhere, Buffer.from(`GET ${url()} HTTP/1.1\r\n\r\n`))), '502');
  });
});
