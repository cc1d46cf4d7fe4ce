import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startEchoServer } from './support/echo-server.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// Every socket of a relayed connection has Nagle off and TCP keep-alive
// after 15 s (lib/relay/socket-options.js): the two each relay accepts,
// which take them from their listener, and the two each relay dials. They
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

  const { stdout } = await promisify(execFile)('python3', [READER, String(client.pid), String(server.pid)]);
  const sockets = JSON.parse(stdout);
  const role = (pid) => (pid === client.pid ? 'client' : 'server');
  const where = ({ pid, local, peer }) => `${role(pid)} :${local} -> :${peer}`;
  const found = (pid, check) => sockets.some((socket) => socket.pid === pid && check(socket));
  assert.equal(sockets.length, 4, sockets.map(where).join(', '));
  assert.ok(
    found(client.pid, ({ local }) => local === client.port),
    'the client socket the app connected to',
  );
  assert.ok(
    found(client.pid, ({ peer }) => peer === server.port),
    "the client's socket to the server",
  );
  assert.ok(
    found(server.pid, ({ local }) => local === server.port),
    'the server socket the client connected to',
  );
  assert.ok(
    found(server.pid, ({ peer }) => peer === echo.port),
    "the server's socket to the target",
  );
  for (const socket of sockets) {
    assert.deepEqual(
      { nodelay: socket.nodelay, keepalive: socket.keepalive, idle: socket.idle },
      { nodelay: 1, keepalive: 1, idle: 15 },
      where(socket),
    );
  }
});
