import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { prepareChain } from '../lib/chain/pipeline.js';
import { v2rayClientConfig, v2rayServerConfig } from '../lib/peers/v2ray.js';
import { xrayClientConfig, xrayServerConfig } from '../lib/peers/xray.js';
import { encodeFrame, MUX_COOL_TARGET, STATUS } from '../lib/wire/mux-cool.js';
import { countingForwarder } from './support/counting-forwarder.js';
import { startEchoServer } from './support/echo-server.js';
import { MUX_COOL_PAIRINGS, startMuxCoolPeer } from './support/mux-cool-peers.js';
import { assertCarriedAtOnce } from './support/mux-transfers.js';
import { freePorts } from './support/ports.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { CATALOGUE } from '../lib/presets/index.js';

// Mux.Cool both ways against its references: our client (a [protocol, mux]
// chain) to their server, their client with mux on to our server. Each
// path carries CONNECTIONS client connections at once, 128 KB each way
// each, SHA-256 checked at the echo target and back, and opens fewer
// tunnel connections than client connections: a forwarder in front of
// each server counts the TCP connections that reach it. Each client
// connection ends once its bytes are back (Mux.Cool has no half-close).
const KEY = 'mux-interop-password';
const CONNECTIONS = 12;
const SIZE = 128 * 1024;
const CONCURRENCY = 8;

const configs = {
  xray: { server: xrayServerConfig, client: (user) => xrayClientConfig({ ...user, mux: CONCURRENCY }) },
  v2ray: { server: v2rayServerConfig, client: (user) => v2rayClientConfig({ ...user, mux: CONCURRENCY }) },
};

// CONNECTIONS transfers at once through `port`, each of SIZE.
const carriedAtOnce = (echo, port, label) =>
  assertCarriedAtOnce(echo, port, label, { connections: CONNECTIONS, size: SIZE, transfer: { timeoutMs: 15_000 } });

describe('Mux.Cool wire compatibility', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-mux-interop-'));
  let echo;
  after(async () => {
    await stopAll();
    await echo?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  for (const { program, label, user, address } of MUX_COOL_PAIRINGS) {
    test(`${label} + mux: ours <-> ${program}`, { timeout: 60_000 }, async (t) => {
      if (!requirePrograms(t, program)) return;
      echo ??= await startEchoServer();
      const forwarders = [];
      t.after(async () => {
        await stopAll();
        await Promise.all(forwarders.map((forwarder) => forwarder.close()));
      });
      const presets = [address, { name: 'mux', params: { concurrency: CONCURRENCY } }];
      const [theirServerPort, theirClientPort] = await freePorts(2);
      const ourServer = await startRelayServer({ key: KEY, presets });
      const toTheirs = await countingForwarder(theirServerPort);
      const toOurs = await countingForwarder(ourServer.port);
      forwarders.push(toTheirs, toOurs);
      const [ourClient] = await Promise.all([
        startRelayClient({ serverPort: toTheirs.port, forwardPort: echo.port, key: KEY, presets }),
        startMuxCoolPeer(
          program,
          folder,
          `${program}-server`,
          configs[program].server({ ...user, port: theirServerPort }),
          theirServerPort,
        ),
        startMuxCoolPeer(
          program,
          folder,
          `${program}-client`,
          configs[program].client({ ...user, port: theirClientPort, serverPort: toOurs.port, forwardPort: echo.port }),
          theirClientPort,
        ),
      ]);

      await carriedAtOnce(echo, ourClient.port, `ours -> ${program}`);
      await carriedAtOnce(echo, theirClientPort, `${program} -> ours`);
      for (const [way, forwarder] of [
        [`ours -> ${program}`, toTheirs],
        [`${program} -> ours`, toOurs],
      ]) {
        assert.ok(forwarder.accepted >= 1, `${way}: a tunnel connection`);
        assert.ok(
          forwarder.accepted <= Math.ceil(CONNECTIONS / CONCURRENCY) + 1,
          `${way}: ${CONNECTIONS} client connections took ${forwarder.accepted} tunnel connections`,
        );
      }
    });
  }
});

// Xray's and V2Ray 4.34's mux servers bound none of what ours refuses
// (test/relay-hostile-mux.test.js): one tunnel opens as many sessions as
// its client asks, whatever the client's concurrency, and a session id
// opened a second time opens another target. Written down in
// docs/notes/mux.md; a pinned peer that bounds them fails here.
for (const { program, user, address } of [MUX_COOL_PAIRINGS[0], MUX_COOL_PAIRINGS[2]]) {
  test(`${program}'s mux server: sessions a tunnel and reused ids unbounded`, { timeout: 30_000 }, async (t) => {
    if (!requirePrograms(t, program)) return;
    const folder = mkdtempSync(path.join(tmpdir(), `cipherbench-mux-${program}-`));
    const target = await startEchoServer();
    t.after(async () => {
      await stopAll();
      await target.close();
      rmSync(folder, { recursive: true, force: true });
    });
    const [port] = await freePorts(1);
    await startMuxCoolPeer(program, folder, 'server', configs[program].server({ ...user, port }), port);
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => {});
    socket.on('data', () => {});
    const chain = [address, { name: 'mux' }];
    const encode = prepareChain(
      CATALOGUE,
      chain,
      {},
    )('client', { target: MUX_COOL_TARGET }).encoder((data) => socket.write(data));
    const open = (id) =>
      Buffer.concat(
        encodeFrame({
          id,
          status: STATUS.new,
          target: { host: '127.0.0.1', port: target.port },
          data: Buffer.from('hi'),
        }),
      );
    const sessions = 4 * CONCURRENCY;
    encode(Buffer.concat([...Array.from({ length: sessions }, (_, i) => open(i + 1)), open(1)]));
    const deadline = Date.now() + 10_000;
    while (target.received.length < sessions + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(target.received.length, sessions + 1, 'every session reached the target, the reused id too');
    assert.ok(!socket.destroyed, 'the tunnel is still open');
    socket.destroy();
  });
}
