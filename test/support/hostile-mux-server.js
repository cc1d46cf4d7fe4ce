import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { echoTransfer } from '../../benchmark/programs/support/transfer.js';
import { prepareChain } from '../../lib/chain/pipeline.js';
import { startEchoServer } from './echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './processes.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// What the hostile-frame tests of our two mux servers (Mux.Cool and
// blinksocks-mux) share. `format` is a frame codec of lib/wire:
// { target, encodeFrame, STATUS }, the tunnel's own target and its frames.

export const CLOSE_BOUND_MS = 3_000;

export const muxFrame = (format, fields) => Buffer.concat(format.encodeFrame(fields));

// Two servers at debug level and an echo target, up before the describe's
// first test and stopped after its last: `busy` serves `chains.busy`,
// `idle` serves `chains.idle` with a 1 s idle timeout. Read the fields
// inside tests.
export function startHostileMuxServers({ key, chains }) {
  const started = {};
  before(async () => {
    started.echo = await startEchoServer();
    [started.busy, started.idle] = await Promise.all([
      startRelayServer({ key, presets: chains.busy, extra: ['--log-level', 'debug'] }),
      startRelayServer({ key, presets: chains.idle, extra: ['--log-level', 'debug', '--idle-timeout', '1'] }),
    ]);
  });
  after(async () => {
    await stopAll();
    await started.echo.close();
  });
  return started;
}

// A tunnel to the server at `port`: write(frames) sends frames through
// `chain`'s client side; `closed` resolves with how long the tunnel lived;
// `sent` keeps the wire bytes. (Whether the client sees the server's reset
// as one is libuv's to say: a reset that comes in while a read is under way
// reads as an end, bridge.js.)
export function openMuxTunnel(port, chain, { key, format }) {
  const socket = net.connect({ host: '127.0.0.1', port });
  const sent = [];
  const encode = prepareChain(CATALOGUE, chain, { password: key })('client', { target: format.target }).encoder(
    (data) => {
      sent.push(Buffer.from(data));
      socket.write(data);
    },
  );
  const start = Date.now();
  socket.on('error', () => {});
  socket.on('data', () => {});
  const closed = new Promise((resolve) => socket.on('close', () => resolve({ ms: Date.now() - start })));
  return { socket, sent, closed, write: (...frames) => encode(Buffer.concat(frames)) };
}

// A server's line comes through a pipe, maybe after the close it explains.
export async function assertServerSaid(child, line) {
  const deadline = Date.now() + CLOSE_BOUND_MS;
  while (!line.test(child.output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.match(child.output, line);
}

// One test a refusal: `frames(target)` sent on a fresh tunnel of `chain`
// to `server()` closes it within the bound, reaches at most `reached`
// targets, and the server says `line`. Each refusal has a target of its
// own: targets of an earlier tunnel still connecting when it was reset are
// not counted against it.
export function testTunnelRefusals(refusals, { server, chain, key, format }) {
  for (const { label, frames, reached, line } of refusals) {
    test(`${label}: the tunnel and its targets are closed`, { timeout: 10_000 }, async (t) => {
      const own = await startEchoServer();
      t.after(() => own.close());
      const tunnel = openMuxTunnel(server().port, chain, { key, format });
      tunnel.write(...frames({ host: '127.0.0.1', port: own.port }));
      const { ms } = await tunnel.closed;
      assert.ok(ms < CLOSE_BOUND_MS, `closed in ${ms} ms`);
      const targets = own.received;
      assert.ok(targets.length <= reached, `${targets.length} targets reached, at most ${reached}`);
      await Promise.all(targets.map((record) => record.closed));
      await assertServerSaid(server(), line);
    });
  }
}

// A tunnel of `chain` that reached its target once, its bytes sent again
// on a new connection, reaches no target, and the server says why.
export function testReplayReachesNoTarget(label, { servers, chain, key, format }) {
  test(label, { timeout: 15_000 }, async () => {
    const { echo, idle } = servers;
    const first = openMuxTunnel(idle.port, chain, { key, format });
    const before = echo.received.length;
    const { STATUS } = format;
    first.write(
      muxFrame(format, {
        id: 1,
        status: STATUS.new,
        target: { host: '127.0.0.1', port: echo.port },
        data: Buffer.from('once'),
      }),
    );
    first.write(muxFrame(format, { id: 1, status: STATUS.end }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    first.socket.destroy();
    await first.closed;
    assert.equal(echo.received.length, before + 1, 'the tunnel itself reached its target');
    const replay = net.connect({ host: '127.0.0.1', port: idle.port });
    replay.on('error', () => {});
    replay.write(Buffer.concat(first.sent));
    await new Promise((resolve) => setTimeout(resolve, 500));
    replay.destroy();
    assert.equal(echo.received.length, before + 1, 'the replay reached no target');
    await assertServerSaid(idle, /refused a replayed or reflected connection/);
  });
}

// The last test: neither server wrote a stack trace, and each still
// carries three transfers at once from a client of its chain.
export function testServersCarryAsBefore(label, { servers, chains, key }) {
  test(label, { timeout: 20_000 }, async () => {
    const { echo, busy, idle } = servers;
    assert.doesNotMatch(busy.output + idle.output, /^\s+at /m, 'no stack trace');
    for (const [presets, port] of [
      [chains.busy, busy.port],
      [chains.idle, idle.port],
    ]) {
      const client = await startRelayClient({ serverPort: port, forwardPort: echo.port, key, presets });
      const results = await Promise.all([1, 2, 3].map(() => echoTransfer({ port: client.port, size: 64 * 1024 })));
      for (const { sent, returned } of results) assert.equal(returned, sent);
    }
  });
}
