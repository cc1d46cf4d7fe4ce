import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startEchoServer } from './support/echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// Every socket of a relayed connection has Nagle off and TCP keep-alive
// after 15 s (lib/relay/socket-options.js): the two the relays accept take
// both from their listener at once; the two they dial have Nagle off at
// once and keep-alive from the first sweep they live through (5 s). They
// are read from the relays' own descriptors (socket-options.py).
const KEY = 'socket-options-password';
const PRESETS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const READER = fileURLToPath(new URL('./support/socket-options.py', import.meta.url));

after(stopAll);

test('each relay socket of a connection: TCP_NODELAY, SO_KEEPALIVE, TCP_KEEPIDLE 15', async (t) => {
  if (!requirePrograms(t, 'python3')) return;
  const echo = await startEchoServer();
  t.after(() => echo.close());
  const server = await startRelayServer({ key: KEY, presets: PRESETS });
  const client = await startRelayClient({
    key: KEY,
    presets: PRESETS,
    serverPort: server.port,
    forwardPort: echo.port,
  });
  const app = net.connect({ port: client.port, host: '127.0.0.1' });
  t.after(() => app.destroy());
  app.write('ping');
  await new Promise((resolve, reject) => app.once('data', resolve).once('error', reject));

  const read = async () =>
    JSON.parse((await promisify(execFile)('python3', [READER, String(client.pid), String(server.pid)])).stdout);
  const role = (pid) => (pid === client.pid ? 'client' : 'server');
  const where = ({ pid, local, peer }) => `${role(pid)} :${local} -> :${peer}`;
  const options = ({ nodelay, keepalive, idle }) => ({ nodelay, keepalive, idle });
  const KEPT_ALIVE = { nodelay: 1, keepalive: 1, idle: 15 };

  const sockets = await read();
  const find = (pid, check) => sockets.find((socket) => socket.pid === pid && check(socket));
  assert.equal(sockets.length, 4, sockets.map(where).join(', '));
  const accepted = [
    find(client.pid, ({ local }) => local === client.port),
    find(server.pid, ({ local }) => local === server.port),
  ];
  const dialled = [
    find(client.pid, ({ peer }) => peer === server.port),
    find(server.pid, ({ peer }) => peer === echo.port),
  ];
  assert.ok(accepted.every(Boolean) && dialled.every(Boolean), sockets.map(where).join(', '));
  for (const socket of accepted) assert.deepEqual(options(socket), KEPT_ALIVE, where(socket));
  for (const socket of dialled) assert.equal(socket.nodelay, 1, where(socket));

  // The dialled ones have keep-alive within two sweeps.
  const until = Date.now() + 12_000;
  let later = await read();
  while (later.some((socket) => socket.keepalive !== 1) && Date.now() < until) {
    await sleep(500);
    later = await read();
  }
  for (const socket of later) assert.deepEqual(options(socket), KEPT_ALIVE, where(socket));
});
