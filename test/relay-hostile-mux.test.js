import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';
import { prepareChain } from '../lib/chain/pipeline.js';
import '../lib/presets/index.js';
import { encodeFrame, MUX_COOL_TARGET, STATUS } from '../lib/wire/mux-cool.js';
import { startEchoServer } from './support/echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';

// What a client inside an authenticated tunnel may send our mux server
// that no client of Mux.Cool sends: each closes that tunnel (a reset, and
// every target of it reset too) within a bound, with one line at debug
// level and no stack trace, and the server serves the next tunnel as
// before. The tunnels here are VLESS, which has no cipher, so the frames
// are written as they are; the replay is VMess's, whose header carries a
// one-time id.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const KEY = 'hostile-mux-password';
const CONCURRENCY = 2;
const VLESS = [
  { name: 'vless', params: { id: ID } },
  { name: 'mux', params: { concurrency: CONCURRENCY } },
];
const VMESS = [
  { name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } },
  { name: 'mux', params: { concurrency: CONCURRENCY } },
];
const BOUND_MS = 3_000;

const frame = (fields) => Buffer.concat(encodeFrame(fields));

// A tunnel of `chain` to the server: write(frames) sends frames through
// the chain's client side; `closed` resolves with how long the tunnel
// lived. `sent` keeps the wire bytes. (Whether the client sees the
// server's reset as one is libuv's to say: a reset that comes in while a
// read is under way reads as an end, bridge.js.)
function openTunnel(port, chain) {
  const socket = net.connect({ host: '127.0.0.1', port });
  const sent = [];
  const encode = prepareChain(chain, { password: KEY })('client', { target: MUX_COOL_TARGET }).encoder((data) => {
    sent.push(Buffer.from(data));
    socket.write(data);
  });
  const start = Date.now();
  socket.on('error', () => {});
  socket.on('data', () => {});
  const closed = new Promise((resolve) => socket.on('close', () => resolve({ ms: Date.now() - start })));
  return { socket, sent, closed, write: (...frames) => encode(Buffer.concat(frames)) };
}

// A server's line comes through a pipe, maybe after the close it explains.
async function assertSaid(child, line) {
  const deadline = Date.now() + BOUND_MS;
  while (!line.test(child.output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.match(child.output, line);
}

describe('the mux server under hostile frames', () => {
  let echo;
  let server;
  let lifetimeServer;
  before(async () => {
    echo = await startEchoServer();
    [server, lifetimeServer] = await Promise.all([
      startRelayServer({ key: KEY, presets: VLESS, extra: ['--log-level', 'debug'] }),
      startRelayServer({ key: KEY, presets: VMESS, extra: ['--log-level', 'debug', '--idle-timeout', '1'] }),
    ]);
  });
  after(async () => {
    await stopAll();
    await echo.close();
  });

  // Each refusal has a target of its own: targets of an earlier tunnel
  // still connecting when it was reset are not counted against it.
  let own = null;
  const target = () => ({ host: '127.0.0.1', port: own.port });
  const refusals = [
    {
      label: 'a Keep frame for a session never opened',
      frames: () => [frame({ id: 5, status: STATUS.keep, data: Buffer.from('x') })],
      reached: 0,
      line: /session 5, never opened/,
    },
    {
      label: 'an End frame for a session never opened',
      frames: () => [frame({ id: 9, status: STATUS.end })],
      reached: 0,
      line: /session 9, never opened/,
    },
    {
      label: 'a session id opened a second time',
      frames: () => [
        frame({ id: 1, status: STATUS.new, target: target() }),
        frame({ id: 1, status: STATUS.end }),
        frame({ id: 1, status: STATUS.new, target: target() }),
      ],
      reached: 1,
      line: /session id 1 opened a second time/,
    },
    {
      label: `more than ${CONCURRENCY} sessions open at once`,
      frames: () =>
        [1, 2, 3].map((id) => frame({ id, status: STATUS.new, target: target(), data: Buffer.from('hello') })),
      reached: CONCURRENCY,
      line: new RegExp(`a session over ${CONCURRENCY} open at once`),
    },
    {
      label: 'a 1,025th session in one tunnel',
      frames: () =>
        Array.from({ length: 1025 }, (_, i) => [
          frame({ id: i + 1, status: STATUS.new, target: target() }),
          frame({ id: i + 1, status: STATUS.end }),
        ]).flat(),
      reached: 1024,
      line: /over 1024 sessions on one tunnel/,
    },
    {
      label: 'metadata of 513 bytes',
      frames: () => [Buffer.concat([Buffer.from([0x02, 0x01]), Buffer.alloc(513)])],
      reached: 0,
      line: /metadata of 513 bytes, over 512/,
    },
    {
      label: 'a flood of KeepAlive frames',
      frames: () => Array.from({ length: 65 }, () => frame({ id: 0, status: STATUS.keepAlive })),
      reached: 0,
      line: /over 64 frames in a row carried nothing/,
    },
    {
      label: 'a flood of Keep frames whose data is 0 bytes',
      frames: () => [
        frame({ id: 1, status: STATUS.new, target: target() }),
        ...Array.from({ length: 65 }, () => frame({ id: 1, status: STATUS.keep, data: Buffer.alloc(0) })),
      ],
      reached: 1,
      line: /over 64 frames in a row carried nothing/,
    },
    {
      label: 'a frame of unknown status',
      frames: () => [Buffer.from([0, 4, 0, 1, 9, 0])],
      reached: 0,
      line: /unknown frame status 9/,
    },
  ];
  for (const { label, frames, reached, line } of refusals) {
    test(`${label}: the tunnel and its targets are closed`, { timeout: 10_000 }, async (t) => {
      own = await startEchoServer();
      t.after(() => own.close());
      const tunnel = openTunnel(server.port, VLESS);
      tunnel.write(...frames());
      const { ms } = await tunnel.closed;
      assert.ok(ms < BOUND_MS, `closed in ${ms} ms`);
      const targets = own.received;
      assert.ok(targets.length <= reached, `${targets.length} targets reached, at most ${reached}`);
      await Promise.all(targets.map((record) => record.closed));
      await assertSaid(server, line);
    });
  }

  // A KeepAlive every 250 ms keeps bytes moving (the socket's idle timeout
  // never fires), but holds no tunnel open without a session.
  test(
    'a tunnel with no session open is closed at the idle timeout, KeepAlives or not',
    { timeout: 10_000 },
    async () => {
      const tunnel = openTunnel(lifetimeServer.port, VMESS);
      const keepAlive = () => tunnel.write(frame({ id: 0, status: STATUS.keepAlive }));
      keepAlive();
      const timer = setInterval(keepAlive, 250);
      const { ms } = await tunnel.closed;
      clearInterval(timer);
      assert.ok(ms >= 900 && ms < BOUND_MS, `closed after ${ms} ms`);
      await assertSaid(lifetimeServer, /mux tunnel with no session for 1000 ms: closed/);
    },
  );

  test('a replayed VMess tunnel reaches no target', { timeout: 15_000 }, async () => {
    const first = openTunnel(lifetimeServer.port, VMESS);
    const before = echo.received.length;
    first.write(
      frame({ id: 1, status: STATUS.new, target: { host: '127.0.0.1', port: echo.port }, data: Buffer.from('once') }),
    );
    first.write(frame({ id: 1, status: STATUS.end }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    first.socket.destroy();
    await first.closed;
    assert.equal(echo.received.length, before + 1, 'the tunnel itself reached its target');
    const replay = net.connect({ host: '127.0.0.1', port: lifetimeServer.port });
    replay.on('error', () => {});
    replay.write(Buffer.concat(first.sent));
    await new Promise((resolve) => setTimeout(resolve, 500));
    replay.destroy();
    assert.equal(echo.received.length, before + 1, 'the replay reached no target');
    await assertSaid(lifetimeServer, /refused a replayed or reflected connection/);
  });

  test('after all of it, the servers carry a mux client as before', { timeout: 20_000 }, async () => {
    assert.doesNotMatch(server.output + lifetimeServer.output, /^\s+at /m, 'no stack trace');
    for (const [presets, port] of [
      [VLESS, server.port],
      [VMESS, lifetimeServer.port],
    ]) {
      const client = await startRelayClient({ serverPort: port, forwardPort: echo.port, key: KEY, presets });
      const results = await Promise.all([1, 2, 3].map(() => echoTransfer({ port: client.port, size: 64 * 1024 })));
      for (const { sent, returned } of results) assert.equal(returned, sent);
    }
  });
});
