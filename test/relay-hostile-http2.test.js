import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { clientBytes, sendHostile } from '../benchmark/programs/support/hostile.js';
import { rssBytes } from '../benchmark/programs/support/proc-stats.js';
import { hunkHeader } from '../lib/presets/grpc.js';
import { MOST_CONTROL_FRAMES_IN_A_ROW } from '../lib/wire/http2-tunnel.js';
import { assertRefused, assertSteadyStillFlows, startSteadyRelayPair } from './support/steady-relay-pair.js';

// A relay server whose chain ends in grpc, met by what HTTP/2 lets a
// client abuse: SETTINGS and PING floods, the rapid-reset pattern of
// CVE-2023-44487 (open a stream, reset it, again), a request never
// finished, a gRPC message announcing 4 GiB, another path, bytes that are
// not HTTP/2. Each is refused within a bound and closed, for the reason
// its debug log gives; nothing reaches the target; the process stays up,
// with no stack and its memory bounded, and a connection opened before
// the attacks keeps flowing. The frames are written by hand here, as an
// attacker would, not by node:http2, which would not send most of them.
const ID = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
const KEY = 'http2-hostile-password';
const PRESETS = [{ name: 'vless', params: { id: ID } }, { name: 'grpc' }];
const RSS_GROWTH_BYTES = 50 * 1024 * 1024;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const TYPES = { data: 0, headers: 1, rstStream: 3, settings: 4, ping: 6 };
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const frame = (type, flags, stream, payload = Buffer.alloc(0)) => {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
};
// HPACK literals without indexing, new names, no Huffman (RFC 7541 6.2.2).
const hpack = (fields) =>
  Buffer.concat(
    fields.map(([name, value]) =>
      Buffer.concat([
        Buffer.from([0, name.length]),
        Buffer.from(name),
        Buffer.from([value.length]),
        Buffer.from(value),
      ]),
    ),
  );
const request = (path = '/cipherbench/Tun') =>
  hpack([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', path],
    [':authority', 'localhost'],
    ['content-type', 'application/grpc'],
  ]);
const opening = (stream = 1, path) =>
  Buffer.concat([PREFACE, frame(TYPES.settings, 0, 0), frame(TYPES.headers, END_HEADERS, stream, request(path))]);
const rstStream = (stream) => frame(TYPES.rstStream, 0, stream, Buffer.from([0, 0, 0, 8]));

describe('relay server over grpc under hostile HTTP/2 (vless)', () => {
  const pair = startSteadyRelayPair({ key: KEY, presets: PRESETS });
  let rssBefore;
  before(() => {
    rssBefore = rssBytes(pair.server.pid);
  });

  const vlessRequest = () =>
    clientBytes({
      presets: [PRESETS[0]],
      password: KEY,
      target: { host: '127.0.0.1', port: pair.echo.port },
      payload: Buffer.from('hello'),
    });

  const refused = (bytes, options) => assertRefused(pair, bytes, options);

  test(`a SETTINGS flood: reset after ${MOST_CONTROL_FRAMES_IN_A_ROW}`, () =>
    refused(Buffer.concat([PREFACE, ...Array.from({ length: 1000 }, () => frame(TYPES.settings, 0, 0))]), {
      reason: /over 64 SETTINGS frames in a row with no data/,
    }));

  test(`a PING flood: reset after ${MOST_CONTROL_FRAMES_IN_A_ROW}`, () =>
    refused(
      Buffer.concat([
        PREFACE,
        frame(TYPES.settings, 0, 0),
        ...Array.from({ length: 1000 }, (_, i) => frame(TYPES.ping, 0, 0, Buffer.alloc(8, i))),
      ]),
      { reason: /over 64 PING frames in a row with no data/ },
    ));

  test('rapid reset (CVE-2023-44487): the first reset ends the connection, no stream ever reaches a target', () => {
    const cycles = Array.from({ length: 500 }, (_, i) =>
      Buffer.concat([frame(TYPES.headers, END_HEADERS, 2 * i + 1, request()), rstStream(2 * i + 1)]),
    );
    return refused(Buffer.concat([PREFACE, frame(TYPES.settings, 0, 0), ...cycles]), {
      reason: /http2: stream reset \(code 8\)/,
    });
  });

  test('a gRPC message announcing 4 GiB: reset at once', () =>
    refused(Buffer.concat([opening(), frame(TYPES.data, 0, 1, Buffer.from('00ffffffff', 'hex'))]), {
      reason: /a message announcing 4294967295 bytes, over 4194304/,
    }));

  // A message's bytes are carried as they come (a target named inside an
  // unfinished message is reached): here they stop before a whole request.
  test('a request whose message never ends, then silence: reset at the handshake timeout', () => {
    const message = Buffer.concat([hunkHeader(1000), vlessRequest().subarray(0, 10)]);
    return refused(Buffer.concat([opening(), frame(TYPES.data, 0, 1, message)]), {
      reason: /no target named within 1000 ms/,
      atOnce: false,
    });
  });

  test('headers never finished (no END_HEADERS, no CONTINUATION): reset at the handshake timeout', () =>
    refused(Buffer.concat([PREFACE, frame(TYPES.settings, 0, 0), frame(TYPES.headers, 0, 1, request())]), {
      reason: /no target named within 1000 ms/,
      atOnce: false,
    }));

  test('a request ended inside a message: reset at once', () =>
    refused(Buffer.concat([opening(), frame(TYPES.data, END_STREAM, 1, hunkHeader(1000))]), {
      reason: /the stream ended inside a message/,
    }));

  test('another path: answered 404, then GOAWAY and a FIN', async () => {
    const { received } = await refused(opening(1, '/elsewhere/Tun'), {
      reason: /a call to "\/elsewhere\/Tun", not \/cipherbench\/Tun \(answered 404\)/,
      how: 'end',
    });
    const frames = [];
    for (let at = 0; at + 9 <= received.length; at += 9 + received.readUIntBE(at, 3)) {
      frames.push({ type: received[at + 3], stream: received.readUInt32BE(at + 5), first: received[at + 9] });
    }
    // :status 404 is HPACK's static entry 13, sent indexed (0x80 | 13).
    assert.ok(frames.some(({ type, stream, first }) => type === TYPES.headers && stream === 1 && first === 0x8d));
    assert.ok(
      frames.some(({ type }) => type === 7),
      'a GOAWAY',
    );
  });

  // nghttp2 answers GOAWAY (PROTOCOL_ERROR) and closes, as RFC 9113 3.4 asks.
  test('not HTTP/2 at all (an HTTP/1.1 request): GOAWAY and closed at once', () =>
    refused(Buffer.from('GET /cipherbench/Tun HTTP/1.1\r\nHost: localhost\r\n\r\n'), {
      reason: /http2: Received bad client magic byte string/,
      how: ['reset', 'end'],
    }));

  // Every attack above that closes at once, 600 connections of them, 50 at
  // a time: the server's memory must not keep what they cost.
  test('a storm of 600 such connections: each closed, none reaching the target', async () => {
    const reached = pair.echo.received.length;
    const kinds = [
      Buffer.concat([PREFACE, ...Array.from({ length: 100 }, () => frame(TYPES.settings, 0, 0))]),
      Buffer.concat([opening(), rstStream(1), frame(TYPES.headers, END_HEADERS, 3, request()), rstStream(3)]),
      Buffer.concat([opening(), frame(TYPES.data, 0, 1, Buffer.from('00ffffffff', 'hex'))]),
      opening(1, '/elsewhere/Tun'),
      Buffer.from('GET / HTTP/1.1\r\n\r\n'),
    ];
    for (let round = 0; round < 12; round++) {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          sendHostile({ port: pair.server.port, bytes: kinds[(round + i) % kinds.length], timeoutMs: 5000 }),
        ),
      );
      for (const { how } of results) assert.ok(['reset', 'end'].includes(how), `closed by ${how}`);
    }
    assert.equal(pair.echo.received.length, reached, 'nothing reached the target');
  });

  test('afterwards: the server is up, printed no stack, holds its memory, and the steady connection still flows', async () => {
    const growth = rssBytes(pair.server.pid) - rssBefore;
    assert.ok(growth < RSS_GROWTH_BYTES, `RSS grew by ${(growth / 1e6).toFixed(1)} MB`);
    await assertSteadyStillFlows(pair, { payload: Buffer.alloc(1024 * 1024, 7), freshBytes: 2 * 1024 * 1024 });
  });
});
