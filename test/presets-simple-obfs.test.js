import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { prepareChain } from '../lib/chain/pipeline.js';
import { CATALOGUE } from '../lib/presets/index.js';
import { validateChain } from '../lib/chain/validate.js';
import { isProtocolError } from '../lib/wire/protocol-error.js';
import { MAX_HEAD } from '../lib/presets/simple-obfs/http-head.js';
import { requestHead, responseHead, websocketAccept } from '../lib/presets/simple-obfs/http-mode.js';
import {
  clientHello,
  MAX_CLIENT_HELLO,
  MAX_RECORD,
  maxTicket,
  parseClientHello,
  serverFlight,
} from '../lib/presets/simple-obfs/tls-hello.js';
import { freePort } from './support/ports.js';
import { stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { exchange, startObfsLocal, startObfsServer, startRecorder } from './support/simple-obfs.js';

// Known answers for simple-obfs: frames obfs-local and obfs-server 0.0.5
// made (kept in fixtures/simple-obfs.json, and made again live when they
// are installed) decoded by ours, ours rebuilt byte for byte from the same
// random fields, our own frames decoded at every split point, and hostile
// input refused with protocolError within bounded buffering.
const HOST = 'www.example.com';
const FIXTURES = JSON.parse(readFileSync(new URL('./fixtures/simple-obfs.json', import.meta.url), 'utf8'));
const pattern = (n, seed) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + seed) & 255));
const CLIENT_WRITES = [pattern(300, 1), pattern(1000, 2)];
const SERVER_WRITES = [pattern(200, 3), pattern(700, 4)];
const MODES = ['http', 'tls'];

const stages = (mode, host = HOST) => CATALOGUE.named('simple-obfs').prepare({ mode, host })({});

// What one stage makes of `pieces`, fed one call each.
function run(stage, pieces) {
  const out = [];
  for (const piece of pieces) stage(piece, (data) => out.push(Buffer.from(data)));
  return Buffer.concat(out);
}

const encoded = (stage, writes) => writes.map((write) => run(stage, [write]));

// Decodes `bytes` cut in two at every point, and byte by byte; each must
// give `expected`. `fresh` makes a new decoder (and anything it needs).
function decodesAtEverySplit(fresh, bytes, expected) {
  for (let at = 0; at <= bytes.length; at++) {
    assert.deepEqual(run(fresh(), [bytes.subarray(0, at), bytes.subarray(at)]), expected, `split at ${at}`);
  }
  const oneByOne = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  assert.deepEqual(run(fresh(), oneByOne), expected, 'byte by byte');
}

function assertRefused(decode, pieces, pattern) {
  assert.throws(
    () => run(decode, pieces),
    (error) => {
      assert.ok(isProtocolError(error), `a protocolError, not ${error.stack}`);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

// A client stage that has sent its hello for CLIENT_WRITES, and the hello's
// TLS session id, which a server flight must echo.
function tlsClientAfterHello() {
  const client = stages('tls');
  const bytes = encoded(client.clientEncode, CLIENT_WRITES);
  return { client, bytes, sessionId: bytes[0].subarray(44, 76) };
}

// A fresh client that has sent its request for CLIENT_WRITES, ready to
// decode `answer`; a TLS answer must echo the hello's session id, so the
// new hello's id is written into it (at the ServerHello's).
function clientAwaiting(mode, answer) {
  const client = stages(mode);
  const hello = encoded(client.clientEncode, CLIENT_WRITES)[0];
  if (mode === 'tls') hello.copy(answer, 44, 44, 76);
  return client.clientDecode;
}

describe('simple-obfs params', () => {
  test('mode is required, host is a host name', () => {
    const chain = (params) =>
      validateChain(CATALOGUE, [{ name: 'ss-base' }, { name: 'simple-obfs', params }]).map(
        (p) => `${p.field}: ${p.message}`,
      );
    assert.deepEqual(chain({ mode: 'tls' }), []);
    assert.deepEqual(chain({ mode: 'http', host: 'cdn.example-1.org' }), []);
    assert.deepEqual(chain({}), ['presets[1].params.mode: missing; valid: http, tls']);
    for (const host of ['', 'a b', 'x\r\nInjected: 1', 'a..b', '-a.com', 'a'.repeat(254), 42]) {
      assert.match(
        chain({ mode: 'http', host })[0],
        /^presets\[1\]\.params\.host: must be a host name/,
        JSON.stringify(host),
      );
    }
    assert.match(
      validateChain(CATALOGUE, [
        { name: 'ss-base' },
        { name: 'simple-obfs', params: { mode: 'tls' } },
        { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
      ])[0].message,
      /simple-obfs disguises the wire and must be the last preset/,
    );
  });
});

describe('simple-obfs http: known answers', () => {
  const fromLocal = Buffer.from(FIXTURES.http.obfsLocal, 'hex');
  const fromServer = Buffer.from(FIXTURES.http.obfsServer, 'hex');

  test('RFC 6455 Sec-WebSocket-Accept', () => {
    assert.equal(websocketAccept('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });

  test("obfs-local's request, decoded by our server at every split point", () => {
    decodesAtEverySplit(() => stages('http').serverDecode, fromLocal, Buffer.concat(CLIENT_WRITES));
  });

  test("our request is obfs-local's, given its key and curl version; Host without its port", () => {
    const head = fromLocal.toString('latin1', 0, fromLocal.indexOf('\r\n\r\n') + 4);
    const [, hostPort, major, minor, key] =
      /Host: (.*)\r\nUser-Agent: curl\/7\.(\d+)\.(\d+)\r\n.*Sec-WebSocket-Key: (\S+)\r\n/s.exec(head);
    assert.match(hostPort, /^www\.example\.com:\d+$/, 'obfs-local names the server port when it is not 80');
    const ours = requestHead({ host: hostPort, key, contentLength: CLIENT_WRITES[0].length, curl: { major, minor } });
    assert.equal(ours, head);
    assert.equal(Buffer.from(key, 'base64').length, 16);
  });

  test("obfs-server's answer, decoded by our client at every split point", () => {
    decodesAtEverySplit(() => clientAwaiting('http', fromServer), fromServer, Buffer.concat(SERVER_WRITES));
  });

  test("our answer is obfs-server's but for a real Sec-WebSocket-Accept", () => {
    const head = fromServer.toString('latin1', 0, fromServer.indexOf('\r\n\r\n') + 4);
    const [, major, minor, date] = /Server: nginx\/1\.(\d+)\.(\d+)\r\nDate: (.*?)\r\n/.exec(head);
    const ours = responseHead({ accept: 'ACCEPT', date, nginx: { major, minor } });
    assert.equal(ours, head.replace(/(Sec-WebSocket-Accept: )\S+/, '$1ACCEPT'));
    assert.match(date, /^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
  });

  test('our server answers with the accept derived from the key, first bytes behind the head', () => {
    const server = stages('http');
    run(server.serverDecode, [fromLocal]);
    const answer = run(server.serverEncode, [Buffer.from('first'), Buffer.from('second')]).toString('latin1');
    const key = /Sec-WebSocket-Key: (\S+)/.exec(fromLocal.toString('latin1'))[1];
    assert.match(answer, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    assert.ok(answer.includes(`\r\nSec-WebSocket-Accept: ${websocketAccept(key)}\r\n\r\nfirstsecond`), answer);
  });
});

describe('simple-obfs tls: known answers', () => {
  const fromLocal = Buffer.from(FIXTURES.tls.obfsLocal, 'hex');
  const fromServer = Buffer.from(FIXTURES.tls.obfsServer, 'hex');

  test("obfs-local's ClientHello and records, decoded by our server at every split point", () => {
    decodesAtEverySplit(() => stages('tls').serverDecode, fromLocal, Buffer.concat(CLIENT_WRITES));
  });

  test("our ClientHello is obfs-local's, byte for byte, given its random and session id", () => {
    const recordLength = fromLocal.readUInt16BE(3);
    const hello = fromLocal.subarray(0, 5 + recordLength);
    const { sessionId, ticket, serverName } = parseClientHello(hello.subarray(5));
    assert.equal(serverName, HOST);
    assert.deepEqual(ticket, CLIENT_WRITES[0]);
    const ours = Buffer.concat(clientHello({ host: HOST, ticket, sessionId, random: hello.subarray(11, 43) }));
    assert.equal(ours.toString('hex'), hello.toString('hex'));
    // The second write follows as one application data record.
    assert.equal(
      fromLocal.subarray(hello.length, hello.length + 5).toString('hex'),
      `170303${(1000).toString(16).padStart(4, '0')}`,
    );
  });

  test("obfs-server's flight, decoded by our client at every split point", () => {
    const flight = Buffer.from(fromServer);
    decodesAtEverySplit(() => clientAwaiting('tls', flight), flight, Buffer.concat(SERVER_WRITES));
  });

  test("our server flight is obfs-server's but for the extensions length it leaves at 0", () => {
    const first = SERVER_WRITES[0];
    const theirs = fromServer.subarray(0, 96 + 6 + 5 + first.length);
    const ours = serverFlight({ sessionId: theirs.subarray(44, 76), random: theirs.subarray(11, 43), data: first });
    assert.equal(theirs.readUInt16BE(79), 0, 'obfs-server: no extensions, it says');
    assert.equal(ours.readUInt16BE(79), 15, 'ours: the 15 bytes that follow');
    ours.writeUInt16BE(0, 79);
    assert.equal(ours.toString('hex'), theirs.toString('hex'));
  });
});

describe('simple-obfs: our frames', () => {
  for (const mode of MODES) {
    test(`${mode}: ours decoded by ours at every split point, both ways`, () => {
      const request = Buffer.concat(encoded(stages(mode).clientEncode, CLIENT_WRITES));
      decodesAtEverySplit(() => stages(mode).serverDecode, request, Buffer.concat(CLIENT_WRITES));
      const server = stages(mode);
      run(server.serverDecode, [request]);
      const answer = Buffer.concat(encoded(server.serverEncode, SERVER_WRITES));
      decodesAtEverySplit(() => clientAwaiting(mode, answer), answer, Buffer.concat(SERVER_WRITES));
    });

    test(`${mode}: empty pushes send nothing; the head goes out with the first bytes`, () => {
      const client = stages(mode);
      assert.equal(run(client.clientEncode, [Buffer.alloc(0)]).length, 0);
      const request = run(client.clientEncode, [Buffer.from('abc')]);
      assert.deepEqual(run(stages(mode).serverDecode, [request]), Buffer.from('abc'));
      const server = stages(mode);
      run(server.serverDecode, [request]);
      assert.equal(run(server.serverEncode, [Buffer.alloc(0)]).length, 0);
    });

    test(`${mode}: a 64 KiB first write and 1 MB after it, within the record limits`, () => {
      const data = [randomBytes(64 * 1024), randomBytes(1024 * 1024)];
      const client = stages(mode);
      const wire = Buffer.concat(encoded(client.clientEncode, data));
      assert.deepEqual(run(stages(mode).serverDecode, [wire]), Buffer.concat(data));
      if (mode === 'tls') {
        const records = recordLengths(wire);
        assert.equal(records[0].type, 0x16);
        assert.equal(5 + records[0].length, MAX_CLIENT_HELLO, 'the ClientHello as long as it may be, and no longer');
        assert.equal(parseClientHello(wire.subarray(5, 5 + records[0].length)).ticket.length, maxTicket(HOST));
        assert.ok(records.slice(1).every((r) => r.type === 0x17 && r.length <= MAX_RECORD));
      }
    });
  }
});

describe('simple-obfs in a chain', () => {
  const chain = (mode) => [
    { name: 'ss-base' },
    { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
    { name: 'simple-obfs', params: { mode } },
  ];
  const clientWire = (mode, writes) => {
    const out = [];
    const encode = prepareChain(CATALOGUE, chain(mode), { password: 'p' })('client', {
      target: { host: '127.0.0.1', port: 80 },
    }).encoder((data) => out.push(data));
    for (const write of writes) encode(write);
    return Buffer.concat(out);
  };

  test('tls: one record per write of the cipher, as obfs-local makes one per read; the hello carries the first write', () => {
    const wire = clientWire('tls', [Buffer.alloc(0), randomBytes(100), randomBytes(40_000)]);
    const records = recordLengths(wire);
    const hello = parseClientHello(wire.subarray(5, 5 + records[0].length));
    // ss-base and the cipher's salt, length and tag for the address header.
    assert.equal(hello.ticket.length, 32 + 18 + 7 + 16);
    // 100 bytes in one chunk: 18 + 100 + 16 in one record; 40,000 bytes in
    // three chunks of up to 16383: 40,102 bytes in records of 16384 at most.
    assert.deepEqual(
      records.slice(1).map((r) => r.length),
      [134, 16384, 16384, 40_000 + 3 * 34 - 2 * 16384],
    );
  });

  test('http: the request head carries the first piece; nothing after it is joined or copied', () => {
    const wire = clientWire('http', [Buffer.alloc(0), Buffer.from('x')]).toString('latin1');
    assert.match(wire, /Content-Length: 32\r\n\r\n/);
  });
});

// [{ type, length }] of the TLS records in `wire`.
function recordLengths(wire) {
  const records = [];
  for (let at = 0; at < wire.length; at += 5 + wire.readUInt16BE(at + 3))
    records.push({ type: wire[at], length: wire.readUInt16BE(at + 3) });
  return records;
}

describe('simple-obfs: hostile input', () => {
  const request = (lines) => Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  const good = [
    'GET / HTTP/1.1',
    `Host: ${HOST}:8080`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  ];

  test('http server: only a simple-obfs upgrade request for our host', () => {
    const decode = () => stages('http').serverDecode;
    assert.deepEqual(run(decode(), [Buffer.concat([request(good), Buffer.from('x')])]), Buffer.from('x'));
    const cases = [
      [['POST / HTTP/1.1', ...good.slice(1)], /not a simple-obfs HTTP request/],
      [['GET / HTTP/1.0', ...good.slice(1)], /not a simple-obfs HTTP request/],
      [good.filter((line) => !line.startsWith('Upgrade')), /without Upgrade: websocket/],
      [good.map((line) => line.replace('websocket', 'h2c')), /without Upgrade: websocket/],
      [good.filter((line) => !line.startsWith('Host')), /without a Host header/],
      [good.map((line) => line.replace(HOST, 'www.example.org')), /for host "www.example.org", not www.example.com/],
      [good.filter((line) => !line.startsWith('Sec-')), /without Sec-WebSocket-Key/],
      [[...good, 'no colon here'], /malformed header line/],
      [[...good, `Host: ${HOST}`], /header host given twice/],
    ];
    for (const [lines, message] of cases) assertRefused(decode(), [request(lines)], message);
    assertRefused(
      decode(),
      [Buffer.from('\x16\x03\x01\x00\x10'), Buffer.alloc(MAX_HEAD)],
      /HTTP request head longer than 8192 bytes/,
    );
  });

  test('http: a head without an end is refused once past the limit, not buffered', () => {
    const decode = stages('http').serverDecode;
    const piece = Buffer.alloc(1024, 'a');
    for (let i = 0; i < MAX_HEAD / piece.length; i++) run(decode, [piece]);
    assertRefused(decode, [piece], /head longer than 8192 bytes/);
    // An end that comes too late is refused too.
    assertRefused(
      stages('http').serverDecode,
      [Buffer.concat([Buffer.alloc(MAX_HEAD + 1, 'a'), Buffer.from('\r\n\r\n')])],
      /head longer/,
    );
  });

  test('http client: only a 101 answer', () => {
    assertRefused(
      stages('http').clientDecode,
      [Buffer.from('HTTP/1.1 200 OK\r\nServer: x\r\n\r\n')],
      /not a simple-obfs HTTP answer/,
    );
    assertRefused(
      stages('http').clientDecode,
      [Buffer.from('SSH-2.0-OpenSSH\r\n\r\n')],
      /not a simple-obfs HTTP answer/,
    );
  });

  test('tls server: only a ClientHello with a session ticket for our host, then data records', () => {
    const hello = (options = {}) =>
      Buffer.concat(
        clientHello({
          host: HOST,
          ticket: Buffer.from('ticket'),
          sessionId: randomBytes(32),
          random: randomBytes(32),
          ...options,
        }),
      );
    const decode = () => stages('tls').serverDecode;
    assert.deepEqual(run(decode(), [hello(), Buffer.from('170303000161', 'hex')]), Buffer.from('ticketa'));
    const mutate = (offset, value, bytes = hello()) => {
      bytes[offset] = value;
      return bytes;
    };
    assertRefused(decode(), [Buffer.from('GET / HTTP/1.1\r\n')], /expected a TLS ClientHello record/);
    assertRefused(decode(), [Buffer.from('1603014801', 'hex')], /TLS ClientHello record of 18433 bytes, over 18432/);
    assertRefused(decode(), [mutate(5, 2)], /not a ClientHello/);
    assertRefused(decode(), [mutate(8, 0)], /length disagrees with its record/);
    assertRefused(decode(), [mutate(9, 2)], /not TLS 1.2/);
    assertRefused(decode(), [mutate(43, 33)], /session id of 33 bytes/);
    assertRefused(decode(), [mutate(77, 0x37)], /cipher suites of 55 bytes/);
    assertRefused(decode(), [mutate(139, 0x24)], /without a session ticket: not simple-obfs/);
    assertRefused(
      decode(),
      [hello({ host: 'www.example.org' })],
      /for server name "www.example.org", not www.example.com/,
    );
    assertRefused(decode(), [hello(), Buffer.from('1503030001ff', 'hex')], /expected a TLS record of type 23/);
    assertRefused(decode(), [hello(), Buffer.from('1703010001ff', 'hex')], /expected a TLS record of type 23/);
    assertRefused(decode(), [hello(), Buffer.from('1703034001', 'hex')], /TLS record of 16385 bytes, over 16384/);
    // The ticket extension (type at 138, length at 140) runs past the end.
    const long = hello();
    long.writeUInt16BE(0x7fff, 140);
    assertRefused(decode(), [long], /truncated TLS ClientHello/);
  });

  test('tls client: the flight must answer our hello', () => {
    const { client, sessionId } = tlsClientAfterHello();
    const flight = serverFlight({ sessionId, random: randomBytes(32), data: Buffer.from('hi') });
    assert.deepEqual(run(client.clientDecode, [flight]), Buffer.from('hi'));
    const refusedFlight = (change, message) => {
      const fresh = tlsClientAfterHello();
      const bytes = serverFlight({ sessionId: fresh.sessionId, random: randomBytes(32), data: Buffer.from('hi') });
      change(bytes);
      assertRefused(fresh.client.clientDecode, [bytes], message);
    };
    refusedFlight((bytes) => bytes.fill(0, 44, 76), /does not echo our session id/);
    refusedFlight((bytes) => {
      bytes[5] = 1;
    }, /not a ServerHello/);
    refusedFlight((bytes) => {
      bytes[96 + 5] = 0;
    }, /expected TLS ChangeCipherSpec/);
    refusedFlight((bytes) => {
      bytes[102] = 0x17;
    }, /expected a TLS record of type 22/);
    refusedFlight((bytes) => {
      bytes.writeUInt16BE(0x4001, 105);
    }, /over 16384/);
    // A ServerHello before we said hello is no answer.
    assertRefused(stages('tls').clientDecode, [flight], /does not echo our session id/);
  });

  test('random and mutated input only ever throws protocolError', () => {
    const valid = {
      http: Buffer.from(FIXTURES.http.obfsLocal, 'hex'),
      tls: Buffer.from(FIXTURES.tls.obfsLocal, 'hex'),
    };
    for (const mode of MODES) {
      for (let i = 0; i < 2000; i++) {
        const input = i % 2 ? randomBytes(1 + (i % 600)) : Buffer.from(valid[mode]);
        if (i % 2 === 0)
          for (let flips = 0; flips < 1 + (i % 4); flips++)
            input[(i * 131 + flips * 17) % input.length] ^= 1 + (i % 255);
        for (const side of ['serverDecode', 'clientDecode']) {
          try {
            run(stages(mode)[side], [input]);
          } catch (error) {
            assert.ok(isProtocolError(error), `${mode} ${side} input ${input.toString('hex')}: ${error.stack}`);
          }
        }
      }
    }
  });
});

// The fixtures again, from the programs on this machine, when they are
// installed: what obfs-local sends now decodes, what ours sends obfs-server
// unwraps exactly, and what it answers decodes.
describe('simple-obfs: live, against obfs-local and obfs-server', () => {
  after(stopAll);
  for (const mode of MODES) {
    test(`${mode}`, { timeout: 20_000 }, async (t) => {
      if (!requirePrograms(t, 'obfs-local', 'obfs-server')) return;
      const fakeServer = await startRecorder();
      const localPort = await freePort();
      await startObfsLocal({ port: localPort, serverPort: fakeServer.port, obfs: mode, host: HOST });
      await exchange({ port: localPort, writes: CLIENT_WRITES, end: true });
      const fromLocal = await fakeServer.received;
      decodesAtEverySplit(() => stages(mode).serverDecode, fromLocal, Buffer.concat(CLIENT_WRITES));

      const { client, bytes } = mode === 'tls' ? tlsClientAfterHello() : { client: stages(mode), bytes: null };
      const ours = bytes ?? encoded(client.clientEncode, CLIENT_WRITES);
      const target = await startRecorder({ expectBytes: 1300, answers: SERVER_WRITES });
      const serverPort = await freePort();
      await startObfsServer({ port: serverPort, forwardPort: target.port, obfs: mode });
      const fromServer = await exchange({ port: serverPort, writes: ours });
      assert.deepEqual(await target.received, Buffer.concat(CLIENT_WRITES), 'obfs-server unwrapped ours exactly');
      assert.deepEqual(run(client.clientDecode, [fromServer]), Buffer.concat(SERVER_WRITES));

      // A first write far larger than a hello: obfs-server mangles a
      // ClientHello that is not whole in its first read (see maxTicket).
      const large = randomBytes(64 * 1024);
      const bigTarget = await startRecorder({ expectBytes: large.length, answers: [Buffer.from('ok')] });
      const bigPort = await freePort();
      await startObfsServer({ port: bigPort, forwardPort: bigTarget.port, obfs: mode });
      await exchange({ port: bigPort, writes: [run(stages(mode).clientEncode, [large])] });
      assert.ok((await bigTarget.received).equals(large), 'obfs-server unwrapped a 64 KiB first write exactly');
    });
  }
});
