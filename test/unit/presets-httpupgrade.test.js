import assert from 'node:assert/strict';
import { test } from 'node:test';
import httpupgrade, { upgradeRequest } from '../../lib/presets/httpupgrade.js';
import { createHeadReader, MAX_HEAD_BYTES } from '../../lib/wire/http-upgrade.js';
import { isProtocolError } from '../../lib/wire/protocol-error.js';
import { duplexPair, readToEnd } from '../support/duplex-pair.js';

// Known answers for the httpupgrade transport, the wire Xray's
// transport/internet/httpupgrade and sing-box's v2rayhttpupgrade write:
// a GET with Connection: Upgrade and Upgrade: websocket (no
// Sec-WebSocket-Key, which sing-box's server refuses), a 101 whose status
// line Xray's client compares whole, then the bytes as they are.
const REQUEST = 'GET /cipherbench HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n';
const ANSWER = 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n';

test("the client's request, byte for byte", () => {
  assert.equal(upgradeRequest({ path: '/cipherbench', host: 'localhost' }).toString('latin1'), REQUEST);
});

test('both layers: the request, the 101, then the bytes untouched each way, a FIN a FIN', async () => {
  const { client, server, wire } = duplexPair();
  const transport = httpupgrade.transport({});
  const ours = transport.connect(client);
  const theirs = transport.accept(server);
  const up = readToEnd(theirs);
  ours.end(Buffer.from('raw bytes up'));
  assert.equal((await up).toString(), 'raw bytes up');
  const down = readToEnd(ours);
  theirs.end(Buffer.from('raw bytes down'));
  assert.equal((await down).toString(), 'raw bytes down');
  assert.equal(Buffer.concat(wire.toServer).toString('latin1'), `${REQUEST}raw bytes up`);
  assert.equal(Buffer.concat(wire.toClient).toString('latin1'), `${ANSWER}raw bytes down`);
});

test('the client sends nothing after its request until the 101 has come', async () => {
  const { client, server, wire } = duplexPair();
  const ours = httpupgrade.transport({}).connect(client);
  ours.write('early');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(Buffer.concat(wire.toServer).toString('latin1'), REQUEST);
  // The 101 and the first bytes in one read, as a server may send them.
  const first = new Promise((resolve) => ours.once('data', resolve));
  server.write(`${ANSWER}first`);
  assert.equal((await first).toString(), 'first');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(Buffer.concat(wire.toServer).toString('latin1'), `${REQUEST}early`);
});

test('a server keeps bytes that came with the request; refuses a wrong path (404), a host not its own and no upgrade', async () => {
  const { client, server } = duplexPair();
  const theirs = httpupgrade.transport({}).accept(server);
  const first = new Promise((resolve) => theirs.once('data', resolve));
  client.write(`${REQUEST}pipelined`);
  assert.equal((await first).toString(), 'pipelined');

  for (const [params, request, status] of [
    [{}, REQUEST.replace('/cipherbench', '/other'), '404 Not Found'],
    [{ host: 'example.com' }, REQUEST, '404 Not Found'],
    [{}, REQUEST.replace('Upgrade: websocket\r\n', ''), '400 Bad Request'],
    [{}, REQUEST.replace('GET', 'POST'), '400 Bad Request'],
  ]) {
    const pair = duplexPair();
    const refused = httpupgrade.transport(params).accept(pair.server);
    const failed = new Promise((resolve) => refused.once('error', resolve));
    const answer = readToEnd(pair.client);
    pair.client.write(request);
    assert.ok(isProtocolError(await failed));
    assert.match((await answer).toString('latin1'), new RegExp(`^HTTP/1\\.1 ${status}\\r\\n`));
  }
});

test('a client refuses an answer that is not a 101 upgrade', async () => {
  for (const [answer, expected] of [
    ['HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n', /refused the upgrade to \/cipherbench: HTTP\/1\.1 404/],
    ['HTTP/1.1 101 Switching Protocols\r\n\r\n', /a 101 without Upgrade/],
    ['SSH-2.0-OpenSSH_9.2\r\n\r\n', /not an HTTP\/1\.1 status line/],
  ]) {
    const { client, server } = duplexPair();
    const ours = httpupgrade.transport({}).connect(client);
    const failed = new Promise((resolve) => ours.once('error', resolve));
    server.write(answer);
    const error = await failed;
    assert.ok(isProtocolError(error));
    assert.match(error.message, expected);
  }
});

test('a head is read to its blank line within a bound, in pieces of any size', () => {
  const bytes = Buffer.from(`${REQUEST}after`);
  for (const step of [1, 2, 3, 5, bytes.length]) {
    const reader = createHeadReader();
    let done = null;
    const rest = [];
    for (let at = 0; at < bytes.length; at += step) {
      const piece = bytes.subarray(at, at + step);
      if (done) rest.push(piece);
      else done = reader.read(piece);
    }
    assert.equal(`${done.head}\r\n\r\n`, REQUEST, `step ${step}`);
    assert.equal(Buffer.concat([done.rest, ...rest]).toString(), 'after');
  }
  const reader = createHeadReader();
  reader.read(Buffer.from('GET / HTTP/1.1\r\n'));
  assert.throws(
    () => reader.read(Buffer.alloc(MAX_HEAD_BYTES, 'a')),
    (error) => isProtocolError(error) && /over 16384 bytes/.test(error.message),
  );
});
