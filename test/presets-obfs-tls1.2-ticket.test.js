import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { validateChain } from '../lib/chain/validate.js';
import preset from '../lib/presets/obfs/tls1.2-ticket.js';
import { readClientHello } from '../lib/presets/obfs/tls-client-hello.js';
import { clientFinish, clientHello, serverHandshake } from '../lib/presets/obfs/tls-handshake.js';
import { isProtocolError } from '../lib/wire/protocol-error.js';
import { blinksocksPreset, requireBlinksocks } from './support/blinksocks-pair.js';
import { assertEverySplit, runStage } from './support/splits.js';
import { CATALOGUE } from '../lib/presets/index.js';

const SNI = 'test.com';
const hex = (text) => Buffer.from(text.replace(/\s/g, ''), 'hex');

// One side of the preset with its replies (the bytes it sends from inside
// a decode stage) and what it said it holds back collected.
function side(sni = SNI) {
  const replies = [];
  const holdings = [];
  const stages = preset.prepare(
    { sni },
    {},
  )({ reply: (data) => replies.push(Buffer.from(data)), holding: (bytes) => holdings.push(bytes) });
  return { ...stages, replies, holdings };
}
const refused = (fn, message) => assert.throws(fn, (error) => isProtocolError(error) && message.test(error.message));

test("known answer: the ClientHello's framing, with the SNI in its server_name extension", () => {
  const hello = clientHello(SNI);
  // Record: handshake, TLS 1.0 on the record layer, then ClientHello (1)
  // whose 3-byte length is the rest, offering TLS 1.2.
  assert.deepEqual(hello.subarray(0, 3), hex('16 0301'));
  assert.equal(hello.readUInt16BE(3), hello.length - 5);
  assert.equal(hello[5], 0x01);
  assert.equal(hello.readUIntBE(6, 3), hello.length - 9);
  assert.deepEqual(hello.subarray(9, 11), hex('0303'));
  assert.ok(hello.length >= 200, 'blinksocks refuses a hello under 200 bytes');
  // server_name: type 0, lengths 13, 11, host_name (0), 8, "test.com".
  assert.ok(hello.includes(Buffer.concat([hex('0000 000d 000b 00 0008'), Buffer.from(SNI)])));
  // The hello's random starts with the clock (seconds).
  assert.ok(Math.abs(hello.readUInt32BE(11) - Date.now() / 1000) < 5);
});

test("known answer: the server's flight and the client's Finished", () => {
  const flight = serverHandshake();
  const records = [];
  for (let at = 0; at < flight.length; at += 5 + flight.readUInt16BE(at + 3))
    records.push(flight.subarray(at, at + 5 + flight.readUInt16BE(at + 3)));
  assert.deepEqual(
    records.map((record) => record.subarray(0, 3).toString('hex')),
    ['160303', '160303', '140303', '160303'],
  );
  assert.deepEqual([records[0][5], records[1][5]], [0x02, 0x04], 'ServerHello, NewSessionTicket');
  assert.deepEqual(records[2], hex('14 0303 0001 01'));
  const finish = clientFinish();
  // blinksocks' server skips exactly 43 bytes: ChangeCipherSpec (6) and a
  // Finished record of 5 + 32.
  assert.equal(finish.length, 43);
  assert.deepEqual(finish.subarray(0, 11), hex('14 0303 0001 01  16 0303 0020'));
});

test("the client holds the stream until the server's hello, then sends Finished with the held bytes", () => {
  const client = side();
  const server = side();
  const data = randomBytes(50_000);
  const hello = Buffer.concat(
    runStage(client.clientEncode, [Buffer.alloc(0), data.subarray(0, 10), data.subarray(10)]),
  );
  assert.equal(hello[0], 0x16);
  assert.equal(hello.length, 5 + hello.readUInt16BE(3), 'only the ClientHello goes out');
  assert.deepEqual(runStage(server.serverDecode, [hello]), []);
  assert.equal(server.replies.length, 1, 'the server answers the hello');
  assert.deepEqual(runStage(client.clientDecode, [server.replies[0]]), []);
  assert.equal(client.replies.length, 1, 'the client releases what it held, in one write');
  // The relay pauses the local side on what the client says it holds.
  assert.ok(client.holdings.at(-2) >= data.length, `held ${client.holdings.at(-2)} of ${data.length} bytes`);
  assert.equal(client.holdings.at(-1), 0, 'and nothing once it has let go');
  assert.deepEqual(Buffer.concat(runStage(server.serverDecode, [client.replies[0]])), data);
  // From now on, records both ways.
  const more = randomBytes(20_000);
  const records = Buffer.concat(runStage(client.clientEncode, [more]));
  assert.deepEqual(records.subarray(0, 5), hex('17 0303 3fff'), 'full records of 0x3FFF bytes');
  assert.deepEqual(Buffer.concat(runStage(server.serverDecode, [records])), more);
  assert.deepEqual(
    Buffer.concat(runStage(client.clientDecode, [Buffer.concat(runStage(server.serverEncode, [more]))])),
    more,
  );
});

test("blinksocks' client handshake and records are read here at every split", (t) => {
  if (!requireBlinksocks(t)) return;
  const theirs = blinksocksPreset('obfs-tls1.2-ticket', { role: 'client', params: { sni: [SNI] } });
  const data = randomBytes(3000);
  let hello;
  theirs.clientOut({
    buffer: data,
    next: (bytes) => {
      hello = bytes;
    },
  });
  assertEverySplit(assert, hello, (pieces) => runStage(side().serverDecode, pieces), Buffer.alloc(0));
  const server = side();
  runStage(server.serverDecode, [hello]);
  let finish;
  theirs.clientIn({
    buffer: server.replies[0],
    next: (bytes) => {
      finish = bytes;
    },
    fail: assert.fail,
  });
  // Their Finished with the held 3000 bytes, cut anywhere, after the hello.
  assertEverySplit(
    assert,
    finish,
    (pieces) => {
      const fresh = side();
      runStage(fresh.serverDecode, [hello]);
      return runStage(fresh.serverDecode, pieces);
    },
    data,
  );
  const more = randomBytes(100_000);
  const records = Buffer.from(theirs.clientOut({ buffer: more }));
  runStage(server.serverDecode, [finish]);
  assert.deepEqual(Buffer.concat(runStage(server.serverDecode, [records])), more);
});

test("blinksocks' server handshake and records are read here at every split, and ours there", (t) => {
  if (!requireBlinksocks(t)) return;
  const client = side();
  const data = randomBytes(3000);
  const hello = Buffer.concat(runStage(client.clientEncode, [data]));
  const theirs = blinksocksPreset('obfs-tls1.2-ticket', { role: 'server', params: { sni: SNI } });
  let flight;
  theirs.serverIn({
    buffer: hello,
    next: (bytes) => {
      flight = bytes;
    },
    fail: assert.fail,
  });
  assert.ok(flight, 'blinksocks answers our ClientHello');
  assertEverySplit(assert, flight, (pieces) => runStage(side().clientDecode, pieces), Buffer.alloc(0));
  runStage(client.clientDecode, [flight]);
  const got = [];
  theirs.serverIn({ buffer: client.replies[0], next: (bytes) => got.push(bytes), fail: assert.fail });
  assert.deepEqual(Buffer.concat(got), data, 'blinksocks reads our Finished and the held bytes');
  const small = randomBytes(700);
  const records = Buffer.from(theirs.serverOut({ buffer: small }));
  assertEverySplit(
    assert,
    records,
    (pieces) => {
      const fresh = side();
      runStage(fresh.clientEncode, [Buffer.alloc(0)]);
      runStage(fresh.clientDecode, [flight]);
      return runStage(fresh.clientDecode, pieces);
    },
    small,
  );
});

test('hostile input is refused at the first record that breaks the handshake, and lengths are bounded', () => {
  const atServer =
    (...pieces) =>
    () =>
      runStage(side().serverDecode, pieces);
  refused(
    atServer(Buffer.from('GET / HTTP/1.1\r\n')),
    /expected a TLS Handshake record \(version 0x0301\), got type 0x47/,
  );
  refused(atServer(hex('17 0303 0001 00')), /expected a TLS Handshake record .* got ApplicationData/);
  refused(atServer(hex('16 0301 4801')), /TLS record of 18433 bytes exceeds 2\^14 \+ 2048/);
  refused(atServer(hex('16 0301 0004 02 000000')), /expected a TLS ClientHello/);
  refused(atServer(hex('16 0301 0005 01 000002 00')), /expected a TLS ClientHello/);
  const hello = clientHello(SNI);
  refused(atServer(hello, hex('17 0303 0001 00')), /expected a TLS ChangeCipherSpec record/);
  refused(atServer(hello, hex('14 0303 0001 02')), /malformed TLS ChangeCipherSpec/);
  refused(atServer(hello, hex('14 0303 0001 01 16 0303 0000')), /empty TLS Finished/);
  refused(atServer(hello, clientFinish(), hex('16 0303 0001 00')), /expected a TLS ApplicationData record/);
  refused(atServer(hello, clientFinish(), hex('17 0303 ffff')), /exceeds 2\^14 \+ 2048/);

  const client = side();
  runStage(client.clientEncode, [Buffer.alloc(0)]);
  refused(
    () => runStage(client.clientDecode, [clientHello(SNI)]),
    /expected a TLS Handshake record \(version 0x0303\)/,
  );
  // A server that never answers cannot make the client hold without end.
  const stalled = side();
  runStage(stalled.clientEncode, [Buffer.alloc(0)]);
  for (let i = 0; i < 8; i++) runStage(stalled.clientEncode, [Buffer.alloc(1024 * 1024)]);
  refused(() => runStage(stalled.clientEncode, [Buffer.alloc(1)]), /no TLS ServerHello while 8388608 bytes waited/);
});

test('sni is required: a host name or a non-empty array of them', () => {
  const problems = (params) =>
    validateChain(CATALOGUE, [{ name: 'ss-base' }, { name: 'obfs-tls1.2-ticket', params }]).map(
      ({ field, message }) => `${field}: ${message}`,
    );
  assert.deepEqual(problems({ sni: 'www.example.com' }), []);
  assert.deepEqual(problems({ sni: ['a.example', 'b.example'] }), []);
  assert.match(problems({})[0], /^presets\[1\]\.params\.sni: missing; the server name \(SNI\)/);
  for (const sni of ['', [], [''], ['a', 3], 42, 'x'.repeat(256)]) {
    assert.match(
      problems({ sni })[0],
      /^presets\[1\]\.params\.sni: must be a host name or a non-empty array of host names/,
      JSON.stringify(sni),
    );
  }
  // Each connection shows one of the names, picked at random.
  const shown = new Set();
  for (let i = 0; i < 40; i++) {
    const hello = Buffer.concat(runStage(side(['a.example', 'b.example']).clientEncode, [Buffer.alloc(0)]));
    shown.add(['a.example', 'b.example'].find((name) => hello.includes(Buffer.from(name))));
  }
  assert.deepEqual([...shown].sort(), ['a.example', 'b.example']);
});

// docs/blinksocks.md, "obfs presets": blinksocks reads each handshake flight
// as "the first read", not as records.
test('blinksocks 3.3.0 defect: its server refuses a ClientHello split across reads', (t) => {
  if (!requireBlinksocks(t)) return;
  const hello = clientHello(SNI);
  const failures = [];
  const theirs = blinksocksPreset('obfs-tls1.2-ticket', { role: 'server', params: { sni: SNI } });
  theirs.serverIn({ buffer: hello.subarray(0, 250), next: assert.fail, fail: (message) => failures.push(message) });
  assert.match(failures[0], /unexpected TLS handshake body length=245, want=/);
  const ours = side();
  runStage(ours.serverDecode, [hello.subarray(0, 250), hello.subarray(250)]);
  assert.equal(ours.replies.length, 1, 'ours answers the hello once it is all in');
});

test("blinksocks 3.3.0 defect: its server skips a fixed 43 bytes after the hello, so a 40-byte Finished (AES-GCM's) corrupts the stream", (t) => {
  if (!requireBlinksocks(t)) return;
  const theirs = blinksocksPreset('obfs-tls1.2-ticket', { role: 'server', params: { sni: SNI } });
  theirs.serverIn({ buffer: clientHello(SNI), next: () => {}, fail: assert.fail });
  const finish40 = hex(`14 0303 0001 01  16 0303 0028 ${'00'.repeat(40)}  17 0303 0003 616263`);
  const got = [];
  theirs.serverIn({ buffer: finish40, next: (data) => got.push(data), fail: assert.fail });
  assert.notEqual(
    Buffer.concat(got).toString(),
    'abc',
    "blinksocks reads the Finished's last 8 bytes as a record header",
  );
  const ours = side();
  assert.equal(Buffer.concat(runStage(ours.serverDecode, [clientHello(SNI), finish40])).toString(), 'abc');
});

test('blinksocks 3.3.0 defect: its client takes the tail of a server flight split across reads as application data', (t) => {
  if (!requireBlinksocks(t)) return;
  const flight = serverHandshake();
  const lastRecord = flight.length - 45; // the 40-byte Finished and its header
  const theirs = blinksocksPreset('obfs-tls1.2-ticket', { role: 'client', params: { sni: SNI } });
  theirs.clientOut({ buffer: Buffer.from('held'), next: () => {} });
  const data = [];
  theirs.clientIn({ buffer: flight.subarray(0, lastRecord), next: () => {}, fail: assert.fail });
  theirs.clientIn({ buffer: flight.subarray(lastRecord), next: (bytes) => data.push(bytes), fail: assert.fail });
  assert.equal(Buffer.concat(data).length, 40, 'the Finished record delivered as 40 bytes of data');
  const ours = side();
  runStage(ours.clientEncode, [Buffer.alloc(0)]);
  assert.deepEqual(runStage(ours.clientDecode, [flight.subarray(0, lastRecord), flight.subarray(lastRecord)]), []);
});

test('blinksocks 3.3.0 defect: any 5-byte header is a record to it, so a Handshake or Alert record is delivered as data', (t) => {
  if (!requireBlinksocks(t)) return;
  const theirs = blinksocksPreset('obfs-tls1.2-ticket', { role: 'server', params: { sni: SNI } });
  theirs.serverIn({ buffer: clientHello(SNI), next: () => {}, fail: assert.fail });
  const alert = hex('15 0303 0002 0228');
  const got = [];
  theirs.serverIn({
    buffer: Buffer.concat([clientFinish(), alert]),
    next: (data) => got.push(data),
    fail: assert.fail,
  });
  assert.deepEqual(Buffer.concat(got), hex('0228'));
  refused(
    () => runStage(side().serverDecode, [clientHello(SNI), clientFinish(), alert]),
    /expected a TLS ApplicationData record .* got type 0x15/,
  );
});

// Its config checks a preset's params only when there is a params object,
// so a chain without sni starts; `sni: []` passes the check itself.
test('blinksocks 3.3.0 defect: without sni, or with sni: [], it fails at the first connection with a TypeError', (t) => {
  if (!requireBlinksocks(t)) return;
  const theirs = blinksocksPreset('obfs-tls1.2-ticket', { role: 'client', params: { sni: [] } });
  assert.throws(() => theirs.clientOut({ buffer: Buffer.from('x'), next: () => {} }), TypeError);
  const message = (params) =>
    validateChain(CATALOGUE, [{ name: 'ss-base' }, { name: 'obfs-tls1.2-ticket', params }])[0]?.message;
  assert.match(message({ sni: [] }), /non-empty array/);
  assert.match(message(undefined), /^missing; the server name/);
});

// The ServerHello's extension types, from a flight.
function serverHelloExtensions(flight) {
  const hello = flight.subarray(5 + 4);
  let at = 2 + 32;
  at += 1 + hello[at]; // session id
  at += 2 + 1; // cipher suite, compression
  const end = at + 2 + hello.readUInt16BE(at);
  const types = [];
  for (at += 2; at < end; at += 4 + hello.readUInt16BE(at + 2)) types.push(hello.readUInt16BE(at));
  return types;
}

test('a ClientHello is read for its session id, suites, extensions and server names; a malformed one is a protocol error', () => {
  const bytes = clientHello('www.example.com');
  const hello = readClientHello(bytes.subarray(5));
  assert.deepEqual(hello.serverNames, ['www.example.com']);
  assert.equal(hello.sessionId.length, 32);
  assert.ok(hello.cipherSuites.includes(0xc02f));
  assert.deepEqual(
    [0xff01, 0x0000, 0x0017, 0x0023].map((type) => hello.extensions.has(type)),
    [true, true, true, true],
  );
  for (const cut of [10, 40, 80, bytes.length - 6]) {
    const message = Buffer.from(bytes.subarray(5, cut));
    message.writeUIntBE(message.length - 4, 1, 3);
    assert.throws(
      () => readClientHello(message),
      (error) => isProtocolError(error) && /runs past its end/.test(error.message),
      `cut at ${cut}`,
    );
  }
});

test("the server's flight carries only the extensions the hello offered, and echoes its session id", () => {
  const ours = readClientHello(clientHello(SNI).subarray(5));
  const full = serverHandshake(ours);
  assert.deepEqual(serverHelloExtensions(full), [0xff01, 0x0017, 0x0023]);
  assert.ok(full.subarray(5 + 4 + 2 + 32 + 1, 5 + 4 + 2 + 32 + 33).equals(ours.sessionId), 'session id echoed');
  // A hello that offers extended_master_secret alone, and no ticket: no
  // renegotiation_info, no session_ticket, no NewSessionTicket.
  const spare = serverHandshake({
    sessionId: Buffer.alloc(0),
    cipherSuites: [0x1301, 0xc02b],
    extensions: new Set([0x0017]),
  });
  assert.deepEqual(serverHelloExtensions(spare), [0x0017]);
  assert.equal(spare.readUInt16BE(5 + 4 + 2 + 32 + 33), 0xc02b, 'the first TLS 1.2 suite offered');
  assert.equal(
    spare[5 + spare.readUInt16BE(3)],
    0x14,
    'ChangeCipherSpec right after the ServerHello: no NewSessionTicket',
  );
  assert.throws(
    () => serverHandshake({ sessionId: Buffer.alloc(0), cipherSuites: [0x1301, 0x00ff], extensions: new Set() }),
    /no TLS 1\.2 cipher suite/,
  );
});
