import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sendHostile } from '../benchmark/programs/support/hostile.js';
import { encodeAddressHeader } from '../lib/wire/address-header.js';
import { startEchoServer } from './support/echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { insideAnswer, onTheWire } from './support/transport-wire.js';

// Replays through a transport, as the replay suite (test/support/suites/
// replay.js) sends them bare: a connection our relay client made, captured
// on the wire between it and the server, sent again three times, and the
// server's own answer fed back to it inside a fresh upgrade, reach no
// target. The transport upgrades a replay like any request (a 101, which
// proves nothing); the chain inside refuses it and holds it until the
// handshake timeout, as it would bare. Over tls the replayed handshake
// itself fails: TLS 1.3's keys are fresh each connection.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const KEY = 'replay-transports-password';
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const CHAINS = [
  { label: 'ss aes-256-gcm + ws', presets: [...GCM, { name: 'ws' }] },
  { label: 'ss aes-256-gcm + httpupgrade', presets: [...GCM, { name: 'httpupgrade' }] },
  {
    label: 'v2ray-vmess aes-128-gcm + httpupgrade',
    presets: [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }, { name: 'httpupgrade' }],
  },
  {
    label: 'vless + ws + tls',
    presets: [{ name: 'vless', params: { id: ID } }, { name: 'ws' }, { name: 'tls', params: { insecure: true } }],
  },
];
const HANDSHAKE_TIMEOUT_S = 1;

for (const { label, presets } of CHAINS) {
  const overTls = presets.some(({ name }) => name === 'tls');
  const endsInClose = presets.some(({ name }) => name === 'ws');
  describe(`replays through a transport reach no target (${label})`, () => {
    let echo;
    let server;
    let captured;
    let tap;
    const connections = () => echo.received.length;
    before(async () => {
      echo = await startEchoServer();
      server = await startRelayServer({
        key: KEY,
        presets,
        extra: ['--handshake-timeout', String(HANDSHAKE_TIMEOUT_S)],
      });
      tap = await startTap(server.port);
      const client = await startRelayClient({ serverPort: tap.port, forwardPort: echo.port, key: KEY, presets });
      // The payload names the echo target itself, so that the server's
      // answer, fed back, would name a target as well.
      const payload = Buffer.concat([encodeAddressHeader({ host: '127.0.0.1', port: echo.port }), Buffer.from('x')]);
      await echoOnce(client.port, payload);
      captured = await tap.first;
      assert.equal(connections(), 1, 'the original connection reached the echo target');
    });
    after(async () => {
      tap?.close();
      await stopAll();
      await echo?.close();
    });

    test('three replays of a captured connection reach no target', async () => {
      const replays = await Promise.all(
        [1, 2, 3].map(() => sendHostile({ port: server.port, bytes: captured.sent, timeoutMs: 5000 })),
      );
      assert.equal(connections(), 1, 'no replay reached the echo target');
      for (const { how, received, ms } of replays) {
        if (overTls) {
          assert.notEqual(received[0], undefined, "the server's TLS handshake answered");
          continue;
        }
        assert.equal(how, 'reset');
        assert.equal(received.indexOf('\r\n\r\n'), received.length - 4, 'nothing but the 101 came back');
        // A ws capture ends in the client's Close frame, its FIN: a refused
        // connection that ends is reset then, as bare (relay-hostile-ws).
        if (!endsInClose)
          assert.ok(ms >= HANDSHAKE_TIMEOUT_S * 1000 - 100, `reset after ${ms} ms, before the handshake timeout`);
      }
    });

    test(
      "the server's own answer, sent back inside a fresh upgrade, reaches no target",
      { skip: overTls && 'TLS: see above' },
      async () => {
        const reflected = onTheWire(presets, insideAnswer(presets, captured.received));
        const { how } = await sendHostile({ port: server.port, bytes: reflected, timeoutMs: 5000 });
        assert.equal(connections(), 1, 'the reflected stream reached no target');
        assert.equal(how, 'reset');
      },
    );

    test('each refusal is counted', { skip: overTls && 'TLS refuses before the chain' }, async () => {
      await stopAll();
      assert.match(server.output, /relay server: 5 connections, 1 to a target, 4 refused \(\d replays\)/);
    });
  });
}

// A TCP relay to `port` that records the first connection through it both
// ways; `first` resolves with { sent, received } once that one has closed.
async function startTap(port) {
  const sockets = new Set();
  let resolveFirst;
  const first = new Promise((resolve) => (resolveFirst = resolve));
  let taken = false;
  const server = net.createServer({ allowHalfOpen: true }, (downstream) => {
    const record = !taken;
    taken = true;
    const sent = [];
    const received = [];
    const upstream = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let open = 2;
    // Each way as it came, its FIN too: a ws Close exchange runs through.
    const carry = (from, to, into) => {
      sockets.add(from);
      from.on('data', (data) => {
        if (record) into.push(data);
        to.write(data);
      });
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
        open -= 1;
        if (record && open === 0) resolveFirst({ sent: Buffer.concat(sent), received: Buffer.concat(received) });
      });
    };
    carry(downstream, upstream, sent);
    carry(upstream, downstream, received);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    first,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

// One connection through the relay client: `payload` out, the same back,
// then closed.
function echoOnce(port, payload) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write(payload));
    let back = 0;
    socket.on('data', (data) => {
      back += data.length;
      if (back >= payload.length) socket.end();
    });
    socket.on('close', () => (back >= payload.length ? resolve() : reject(new Error(`${back} bytes back`))));
    socket.on('error', reject);
  });
}
