import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { prepareChain } from '../lib/chain/pipeline.js';
import { createFrameReader, encodeFrame, MUX_COOL_TARGET, NETWORK_UDP, STATUS } from '../lib/wire/mux-cool.js';
import { startRelayServer, stopAll } from './support/processes.js';
import { CATALOGUE } from '../lib/presets/index.js';

// UDP sessions in a Mux.Cool tunnel (network 2, and XUDP's Keep frames
// with an address) under what no client of the protocol sends, and the
// bounds a hostile one meets: the tunnel closed within a bound with one
// line at debug level, or the datagram dropped with the tunnel going on.
// VLESS carries the frames as they are.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const KEY = 'hostile-mux-udp-password';
const CONCURRENCY = 2;
const VLESS = [
  { name: 'vless', params: { id: ID } },
  { name: 'mux', params: { concurrency: CONCURRENCY } },
];
const BOUND_MS = 3_000;

const frame = (fields) => Buffer.concat(encodeFrame(fields));
const udpNew = (id, target, data) => frame({ id, status: STATUS.new, network: NETWORK_UDP, target, data });
const keep = (id, data, address = null) => frame({ id, status: STATUS.keep, address, data });

// A tunnel to the server whose answers are read as frames: `frames` holds
// each one with its data, `next(test)` resolves with the first that passes.
function openTunnel(port) {
  const socket = net.connect({ host: '127.0.0.1', port });
  const pipeline = prepareChain(CATALOGUE, VLESS, { password: KEY })('client', { target: MUX_COOL_TARGET });
  const encode = pipeline.encoder((data) => socket.write(data));
  const frames = [];
  const waiting = [];
  let pieces = [];
  const reader = createFrameReader({
    onFrame: () => {},
    onData: (_, piece) => pieces.push(Buffer.from(piece)),
    onFrameEnd(done) {
      const whole = { ...done, data: Buffer.concat(pieces) };
      pieces = [];
      frames.push(whole);
      for (const wait of [...waiting]) if (wait.test(whole)) wait.resolve(whole);
    },
  });
  const decode = pipeline.decoder((data) => reader.read(data));
  socket.on('data', (data) => decode(data));
  socket.on('error', () => {});
  const start = Date.now();
  const closed = new Promise((resolve) => socket.on('close', () => resolve({ ms: Date.now() - start })));
  const next = (check, ms = BOUND_MS) =>
    new Promise((resolve, reject) => {
      const found = frames.find(check);
      if (found) return resolve(found);
      const entry = { test: check, resolve };
      waiting.push(entry);
      setTimeout(() => reject(new Error(`no such frame within ${ms} ms`)), ms).unref();
    });
  return { socket, frames, closed, next, write: (...parts) => encode(Buffer.concat(parts)) };
}

// A UDP echo target that also has a second socket answer each datagram
// with `stranger`: a reply from an address the session never sent to.
async function targets() {
  const echo = dgram.createSocket('udp4');
  const other = dgram.createSocket('udp4');
  const received = [];
  echo.on('message', (data, from) => {
    received.push(data);
    other.send(Buffer.from('stranger'), from.port, from.address);
    echo.send(data, from.port, from.address);
  });
  await Promise.all([echo, other].map((socket) => new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve))));
  return {
    port: echo.address().port,
    received,
    close: () => Promise.all([echo, other].map((socket) => new Promise((resolve) => socket.close(resolve)))),
  };
}

async function assertSaid(child, line) {
  const deadline = Date.now() + BOUND_MS;
  while (!line.test(child.output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.match(child.output, line);
}

describe('UDP sessions in the mux server under hostile frames', () => {
  let server;
  let idleServer;
  let target;
  before(async () => {
    target = await targets();
    [server, idleServer] = await Promise.all([
      startRelayServer({ key: KEY, presets: VLESS, extra: ['--log-level', 'debug'] }),
      startRelayServer({ key: KEY, presets: VLESS, extra: ['--log-level', 'debug', '--idle-timeout', '1'] }),
    ]);
  });
  after(async () => {
    await stopAll();
    await target.close();
  });
  const echoAt = () => ({ host: '127.0.0.1', port: target.port });

  test('replies come only from the addresses the session sent to, each naming its source', async () => {
    const tunnel = openTunnel(server.port);
    tunnel.write(udpNew(1, echoAt(), Buffer.from('one')), keep(1, Buffer.from('two'), echoAt()));
    const [one, two] = await Promise.all(['one', 'two'].map((text) => tunnel.next((each) => `${each.data}` === text)));
    for (const reply of [one, two]) {
      assert.deepEqual(reply.target, echoAt(), 'the reply names its source');
      assert.equal(reply.network, NETWORK_UDP);
    }
    // The stranger answered each datagram as the echo did.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(tunnel.frames.filter((each) => `${each.data}` === 'stranger').length, 0, 'the stranger was dropped');
    tunnel.socket.destroy();
  });

  test('a target by name is looked up, and its replies come back', async () => {
    const tunnel = openTunnel(server.port);
    tunnel.write(udpNew(1, { host: 'localhost', port: target.port }, Buffer.from('by name')));
    const reply = await tunnel.next((each) => `${each.data}` === 'by name');
    assert.deepEqual(reply.target, echoAt());
    tunnel.socket.destroy();
  });

  test('a datagram to a refused address is dropped, the session goes on; a refused New is ended', async () => {
    const tunnel = openTunnel(server.port);
    tunnel.write(
      udpNew(1, echoAt()),
      keep(1, Buffer.from('far'), { host: '192.0.2.1', port: 9 }),
      keep(1, Buffer.from('port 0'), { host: '127.0.0.1', port: 0 }),
      keep(1, Buffer.from('near')),
      udpNew(2, { host: '192.0.2.1', port: 9 }),
    );
    const refused = await tunnel.next((each) => each.id === 2 && each.status === STATUS.end);
    assert.equal(refused.error, true);
    await tunnel.next((each) => each.data.toString() === 'near');
    assert.equal(target.received.filter((data) => /far|port 0/.test(`${data}`)).length, 0);
    assert.ok(!tunnel.socket.destroyed, 'the tunnel goes on');
    tunnel.socket.destroy();
    await assertSaid(server, /mux UDP session 2: refused target 192\.0\.2\.1:9/);
  });

  // Datagrams cost the server a send each, like any UDP it relays: a
  // flood of them to a port where nothing listens is carried and dropped
  // by the kernel, and the tunnel goes on serving.
  test('a flood of 5,000 datagrams to a closed port: the tunnel goes on', { timeout: 15_000 }, async () => {
    const closed = dgram.createSocket('udp4');
    await new Promise((resolve) => closed.bind(0, '127.0.0.1', resolve));
    const nowhere = { host: '127.0.0.1', port: closed.address().port };
    await new Promise((resolve) => closed.close(resolve));
    const tunnel = openTunnel(server.port);
    tunnel.write(udpNew(1, nowhere), ...Array.from({ length: 5000 }, () => keep(1, Buffer.from('x'))));
    tunnel.write(udpNew(2, echoAt(), Buffer.from('after')));
    await tunnel.next((each) => each.id === 2 && each.data.toString() === 'after', 10_000);
    assert.ok(!tunnel.socket.destroyed);
    tunnel.socket.destroy();
  });

  const refusals = [
    {
      label: 'a datagram over 8,192 bytes',
      frames: () => [udpNew(1, echoAt()), keep(1, Buffer.alloc(8193))],
      line: /UDP session 1: a datagram over 8192 bytes/,
    },
    {
      label: `more than ${CONCURRENCY} UDP sessions open at once`,
      frames: () => [1, 2, 3].map((id) => udpNew(id, echoAt(), Buffer.from('x'))),
      line: new RegExp(`a session over ${CONCURRENCY} open at once`),
    },
    {
      label: 'an XUDP Keep frame with an unknown address type',
      frames: () => [udpNew(1, echoAt()), Buffer.from([0, 9, 0, 1, 2, 1, 2, 0, 53, 9, 0, 0, 1, 0x78])],
      line: /unknown address type 9/,
    },
    {
      label: 'a flood of empty Keep frames in a UDP session',
      frames: () => [udpNew(1, echoAt()), ...Array.from({ length: 65 }, () => frame({ id: 1, status: STATUS.keep }))],
      line: /over 64 frames in a row carried nothing/,
    },
  ];
  for (const { label, frames, line } of refusals) {
    test(`${label}: the tunnel is closed`, { timeout: 10_000 }, async () => {
      const tunnel = openTunnel(server.port);
      tunnel.write(...frames());
      const { ms } = await tunnel.closed;
      assert.ok(ms < BOUND_MS, `closed in ${ms} ms`);
      await assertSaid(server, line);
    });
  }

  // KeepAlives keep the tunnel's socket busy; the UDP session still idles.
  test('a UDP session idle for the idle timeout is ended, then the tunnel', { timeout: 10_000 }, async () => {
    const tunnel = openTunnel(idleServer.port);
    tunnel.write(udpNew(1, echoAt(), Buffer.from('once')));
    await tunnel.next((each) => each.data.toString() === 'once');
    const keepAlive = () => tunnel.write(frame({ id: 0, status: STATUS.keepAlive }));
    const timer = setInterval(keepAlive, 250);
    const started = Date.now();
    const ended = await tunnel.next((each) => each.id === 1 && each.status === STATUS.end, 5_000);
    const ms = Date.now() - started;
    assert.equal(ended.error, false);
    assert.ok(ms >= 700 && ms < BOUND_MS, `ended after ${ms} ms`);
    await tunnel.closed;
    clearInterval(timer);
    await assertSaid(idleServer, /mux UDP session 1: idle for 1000 ms/);
  });

  test('after all of it, no stack trace', () => {
    assert.doesNotMatch(server.output + idleServer.output, /^\s+at /m);
  });
});
