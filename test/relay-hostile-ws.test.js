import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { createFrameReader, encodeFrame, MOST_EMPTY_FRAMES_IN_A_ROW, upgradeRequest } from '../lib/presets/ws.js';
import { MAX_HEAD_BYTES } from '../lib/wire/http-upgrade.js';
import { clientBytes } from '../benchmark/programs/support/hostile.js';
import { assertRefused, assertSteadyStillFlows, startSteadyRelayPair } from './support/steady-relay-pair.js';

// A relay server whose chain ends in ws, met by what breaks RFC 6455 or
// never finishes: a frame announcing 2^63 bytes, an unmasked client frame,
// a flood of pings, a message never finished, an upgrade request never
// finished or over its bound. Each is refused within a bound and closed,
// for the reason its debug log gives; nothing reaches the target; the
// process stays up, with no stack, and a connection opened before the
// attack keeps flowing.
const ID = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
const KEY = 'ws-hostile-password';
const PRESETS = [{ name: 'vless', params: { id: ID } }, { name: 'ws' }];
const UPGRADE = upgradeRequest({ path: '/cipherbench', host: 'localhost', key: 'dGhlIHNhbXBsZSBub25jZQ==' });
const MASK = Buffer.from('37fa213d', 'hex');
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const masked = (payload, options = {}) => Buffer.concat(encodeFrame([payload], { masked: true, ...options }));

describe('relay server over ws under hostile input (vless)', () => {
  const pair = startSteadyRelayPair({ key: KEY, presets: PRESETS });

  const request = (payload = Buffer.from('hello')) =>
    clientBytes({ presets: [PRESETS[0]], password: KEY, target: { host: '127.0.0.1', port: pair.echo.port }, payload });

  const refused = (bytes, options) => assertRefused(pair, bytes, options);

  test('a frame announcing 2^63 bytes (and 2^62): reset at once', async () => {
    const { received } = await refused(Buffer.concat([UPGRADE, hex('82 ff 8000000000000000'), MASK]), {
      reason: /most significant bit/,
    });
    assert.match(received.toString('latin1'), /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    await refused(Buffer.concat([UPGRADE, hex('82 ff 4000000000000000'), MASK]), { reason: /a frame announcing/ });
  });

  test('an unmasked client frame, even one carrying a valid request: reset at once', () =>
    refused(Buffer.concat([UPGRADE, ...encodeFrame([request()], { masked: false })]), {
      reason: /an unmasked frame from a client/,
    }));

  test('a flood of pings: reset after 64, answered by no more than 64 pongs', async () => {
    const pings = Array.from({ length: 1000 }, () => masked(Buffer.alloc(125, 1), { opcode: 0x9 }));
    const { received } = await refused(Buffer.concat([UPGRADE, ...pings]), {
      reason: /over 64 frames in a row carried no data/,
    });
    const pongs = received.length - received.indexOf('\r\n\r\n') - 4;
    assert.ok(pongs <= MOST_EMPTY_FRAMES_IN_A_ROW * (2 + 125), `${pongs} bytes of pongs`);
  });

  test('a message never finished, then silence: reset at the handshake timeout', async () => {
    // A frame announcing 1,000 bytes, 10 of them sent: no request yet.
    const cut = masked(Buffer.concat([request(), Buffer.alloc(1000)])).subarray(0, 2 + 2 + 4 + 10);
    await refused(Buffer.concat([UPGRADE, cut]), { reason: /no target named within 1000 ms/, atOnce: false });
  });

  // The server resets (strace: SO_LINGER 0 then close, 10 times of 10), but
  // a client that has sent its FIN cannot always tell: libuv reports a
  // reset that arrives while it reads the 101 as an end, and with its
  // sending side closed it has no write left to probe with.
  test('a message never finished, then FIN: reset at the FIN', async () => {
    const cut = masked(Buffer.alloc(1000)).subarray(0, 2 + 2 + 4 + 10);
    await refused(Buffer.concat([UPGRADE, cut]), { reason: /ended inside a frame/, end: true, how: ['reset', 'end'] });
  });

  test('an upgrade request never finished: reset at the handshake timeout', () =>
    refused(Buffer.from('GET /cipherbench HTTP/1.1\r\nHost: localhost\r\n'), {
      reason: /no target named within 1000 ms/,
      atOnce: false,
    }));

  test(`an upgrade request over ${MAX_HEAD_BYTES} bytes: reset at once`, () =>
    refused(Buffer.from(`GET /cipherbench HTTP/1.1\r\n${'X-Padding: aaaaaaaaaaaaaaaaaaaaaaaa\r\n'.repeat(600)}`), {
      reason: /an HTTP head over 16384 bytes/,
    }));

  test('another path or no upgrade: answered 404 or 400, then a FIN', async () => {
    const other = Buffer.from(UPGRADE.toString('latin1').replace('/cipherbench', '/elsewhere'));
    const notFound = await refused(other, { reason: /not \/cipherbench \(answered 404\)/, how: 'end' });
    assert.match(notFound.received.toString('latin1'), /^HTTP\/1\.1 404 Not Found\r\n/);
    const plain = Buffer.from('GET /cipherbench HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const badRequest = await refused(plain, { reason: /answered 400/, how: 'end' });
    assert.match(badRequest.received.toString('latin1'), /^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  test("an unfinished message's bytes are carried as they come, not held for its end", async () => {
    const socket = net.connect({ port: pair.server.port, host: '127.0.0.1' });
    const data = [];
    const reader = createFrameReader({
      masked: false,
      onData: (piece) => data.push(Buffer.from(piece)),
      onControl() {},
    });
    let head = Buffer.alloc(0);
    const echoed = new Promise((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        if (head !== null) {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf('\r\n\r\n');
          if (end === -1) return;
          chunk = head.subarray(end + 4);
          head = null;
        }
        reader.read(chunk);
        if (Buffer.concat(data).includes('hello')) resolve(Buffer.concat(data));
      });
    });
    // FIN clear: the message goes on, in a frame announcing a megabyte.
    const frame = masked(Buffer.concat([request(), Buffer.alloc(1 << 20)]));
    frame[0] = 0x02;
    socket.write(Buffer.concat([UPGRADE, frame.subarray(0, 2 + 8 + 4 + request().length)]));
    const back = await echoed;
    assert.deepEqual(back.subarray(0, 2), Buffer.from([0, 0]), "vless's response header");
    socket.destroy();
  });

  test('afterwards: the server is up, printed no stack, and the steady connection still flows', async () => {
    await assertSteadyStillFlows(pair, { payload: Buffer.alloc(1024 * 1024, 7), freshBytes: 8 * 1024 * 1024 });
  });
});
