import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';
import { prepareChain } from '../lib/chain/pipeline.js';
import '../lib/presets/index.js';
import { BLINKSOCKS_MUX_TARGET, encodeFrame, STATUS } from '../lib/wire/blinksocks-mux-frames.js';
import { startEchoServer } from './support/echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';

// What a client inside a blinksocks-mux tunnel may send our server that no
// client of the format sends, as relay-hostile-mux.test.js does for
// Mux.Cool: each closes that tunnel (a reset, its targets reset too) within
// a bound, with one line at debug level and no stack trace, and the server
// serves the next tunnel as before. blinksocks' own server bounds none of
// it (docs/notes/mux.md). The tunnels here have no cipher, so the frames go
// as they are; the replay is of an aes-256-gcm tunnel, whose salt the
// server remembers.
const KEY = 'hostile-blinksocks-mux-password';
const PLAIN = [{ name: 'blinksocks-mux', params: { concurrency: 2 } }];
const GCM = [
  { name: 'blinksocks-mux', params: { concurrency: 2 } },
  { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
];
// blinksocks' client bounds no tunnel's sessions: ours allows 128 open at
// once whatever the chain's concurrency (2 here).
const MOST_OPEN = 128;
const BOUND_MS = 3_000;

const frame = (fields) => Buffer.concat(encodeFrame(fields));

// A tunnel to the server; write(frames) sends them through `chain`'s
// client side. `closed` resolves with how long the tunnel lived.
function openTunnel(port, chain) {
  const socket = net.connect({ host: '127.0.0.1', port });
  const sent = [];
  const encode = prepareChain(chain, { password: KEY })('client', { target: BLINKSOCKS_MUX_TARGET }).encoder((data) => {
    sent.push(Buffer.from(data));
    socket.write(data);
  });
  const start = Date.now();
  socket.on('error', () => {});
  socket.on('data', () => {});
  const closed = new Promise((resolve) => socket.on('close', () => resolve({ ms: Date.now() - start })));
  return { socket, sent, closed, write: (...frames) => encode(Buffer.concat(frames)) };
}

async function assertSaid(child, line) {
  const deadline = Date.now() + BOUND_MS;
  while (!line.test(child.output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.match(child.output, line);
}

describe('the blinksocks-mux server under hostile frames', () => {
  let echo;
  let server;
  let idleServer;
  before(async () => {
    echo = await startEchoServer();
    [server, idleServer] = await Promise.all([
      startRelayServer({ key: KEY, presets: PLAIN, extra: ['--log-level', 'debug'] }),
      startRelayServer({ key: KEY, presets: GCM, extra: ['--log-level', 'debug', '--idle-timeout', '1'] }),
    ]);
  });
  after(async () => {
    await stopAll();
    await echo.close();
  });

  let own = null;
  const target = () => ({ host: '127.0.0.1', port: own.port });
  const data = (id, bytes = 'x') => frame({ id, status: STATUS.keep, data: Buffer.from(bytes) });
  const refusals = [
    {
      label: 'a Data frame for a session never opened',
      frames: () => [data(5)],
      reached: 0,
      line: /session 5, never opened/,
    },
    {
      label: 'a Close frame for a session never opened',
      frames: () => [frame({ id: 9, status: STATUS.end })],
      reached: 0,
      line: /session 9, never opened/,
    },
    {
      label: 'a session id opened again while open',
      frames: () => [
        frame({ id: 1, status: STATUS.new, target: target(), data: Buffer.from('a') }),
        frame({ id: 1, status: STATUS.new, target: target(), data: Buffer.from('b') }),
      ],
      reached: 1,
      line: /session id 1 opened a second time/,
    },
    {
      label: `more than ${MOST_OPEN} sessions open at once`,
      frames: () =>
        Array.from({ length: MOST_OPEN + 1 }, (_, i) =>
          frame({ id: 0x1000 + i, status: STATUS.new, target: target(), data: Buffer.from('hi') }),
        ),
      reached: MOST_OPEN,
      line: new RegExp(`a session over ${MOST_OPEN} open at once`),
    },
    {
      label: 'a flood of Data frames of no bytes',
      frames: () => [
        frame({ id: 1, status: STATUS.new, target: target() }),
        ...Array.from({ length: 65 }, () => frame({ id: 1, status: STATUS.keep, data: Buffer.alloc(0) })),
      ],
      reached: 1,
      line: /over 64 frames in a row carried nothing/,
    },
    {
      label: 'a frame of unknown command',
      frames: () => [Buffer.from([3, 0, 0, 0, 1])],
      reached: 0,
      line: /unknown frame command 3/,
    },
    {
      label: 'a New frame whose host is no host name',
      frames: () => [Buffer.from('00000000010300200a0050', 'hex')],
      reached: 0,
      line: /host is not a host name/,
    },
  ];
  for (const { label, frames, reached, line } of refusals) {
    test(`${label}: the tunnel and its targets are closed`, { timeout: 10_000 }, async (t) => {
      own = await startEchoServer();
      t.after(() => own.close());
      const tunnel = openTunnel(server.port, PLAIN);
      tunnel.write(...frames());
      const { ms } = await tunnel.closed;
      assert.ok(ms < BOUND_MS, `closed in ${ms} ms`);
      const targets = own.received;
      assert.ok(targets.length <= reached, `${targets.length} targets reached, at most ${reached}`);
      await Promise.all(targets.map((record) => record.closed));
      await assertSaid(server, line);
    });
  }

  // blinksocks' client picks each session's id at random and puts any
  // number of sessions on a tunnel: 1,100 in one tunnel's life (over
  // Mux.Cool's 1,024), one id twice once closed, and the tunnel still
  // carries the next.
  test('a tunnel of 1,100 sessions, one id used twice, goes on', { timeout: 20_000 }, async (t) => {
    own = await startEchoServer();
    t.after(() => own.close());
    const tunnel = openTunnel(server.port, PLAIN);
    const echoed = [];
    tunnel.socket.on('data', (bytes) => echoed.push(bytes));
    const open = (id) => frame({ id, status: STATUS.new, target: target() });
    const close = (id) => frame({ id, status: STATUS.end });
    tunnel.write(...Array.from({ length: 1_099 }, (_, i) => [open(i + 1), close(i + 1)]).flat(), open(1));
    tunnel.write(data(1, 'still here'));
    const deadline = Date.now() + 15_000;
    const back = () => Buffer.concat(echoed).includes('still here');
    while (!back() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(back(), 'the last session was echoed');
    assert.ok(!tunnel.socket.destroyed, 'the tunnel is open');
    tunnel.socket.destroy();
  });

  // A Data frame of no bytes for the closed session every 250 ms keeps
  // bytes moving (the socket's idle timeout never fires), as a KeepAlive
  // would in Mux.Cool, which blinksocks' format lacks.
  test(
    'a tunnel with no session open is closed at the idle timeout, bytes moving or not',
    { timeout: 10_000 },
    async () => {
      const tunnel = openTunnel(idleServer.port, GCM);
      tunnel.write(
        frame({ id: 7, status: STATUS.new, target: { host: '127.0.0.1', port: echo.port }, data: Buffer.from('x') }),
        frame({ id: 7, status: STATUS.end }),
      );
      const timer = setInterval(() => tunnel.write(frame({ id: 7, status: STATUS.keep, data: Buffer.alloc(0) })), 250);
      const { ms } = await tunnel.closed;
      clearInterval(timer);
      assert.ok(ms >= 900 && ms < BOUND_MS, `closed after ${ms} ms`);
      await assertSaid(idleServer, /mux tunnel with no session for 1000 ms: closed/);
    },
  );

  test('a replayed aes-256-gcm tunnel reaches no target', { timeout: 15_000 }, async () => {
    const first = openTunnel(idleServer.port, GCM);
    const before = echo.received.length;
    first.write(
      frame({ id: 1, status: STATUS.new, target: { host: '127.0.0.1', port: echo.port }, data: Buffer.from('once') }),
    );
    first.write(frame({ id: 1, status: STATUS.end }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    first.socket.destroy();
    await first.closed;
    assert.equal(echo.received.length, before + 1, 'the tunnel itself reached its target');
    const replay = net.connect({ host: '127.0.0.1', port: idleServer.port });
    replay.on('error', () => {});
    replay.write(Buffer.concat(first.sent));
    await new Promise((resolve) => setTimeout(resolve, 500));
    replay.destroy();
    assert.equal(echo.received.length, before + 1, 'the replay reached no target');
    await assertSaid(idleServer, /refused a replayed or reflected connection/);
  });

  test('after all of it, the servers carry a blinksocks-mux client as before', { timeout: 20_000 }, async () => {
    assert.doesNotMatch(server.output + idleServer.output, /^\s+at /m, 'no stack trace');
    for (const [presets, port] of [
      [PLAIN, server.port],
      [GCM, idleServer.port],
    ]) {
      const client = await startRelayClient({ serverPort: port, forwardPort: echo.port, key: KEY, presets });
      const results = await Promise.all([1, 2, 3].map(() => echoTransfer({ port: client.port, size: 64 * 1024 })));
      for (const { sent, returned } of results) assert.equal(returned, sent);
    }
  });
});
