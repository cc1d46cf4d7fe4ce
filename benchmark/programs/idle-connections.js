// What idle connections cost the relay pair (issue 6): starts a relay server
// and client (through the CLI, with the runner's node flags) in front of an echo
// target, opens N connections through them, each proven end to end by one
// echoed byte, holds them, and reads both relays' RSS from /proc.
//   node benchmark/programs/idle-connections.js [N=1000] [METHOD=aes-256-gcm]
// Loopback only; every connection is closed before it exits.
import net from 'node:net';
import { startEchoTarget } from '../../lib/traffic/echo-target.js';
import { rssBytes } from './support/proc-stats.js';
import { startOurRelay, stopAll } from './support/processes.js';

const count = Number(process.argv[2] ?? 1000);
const method = process.argv[3] ?? 'aes-256-gcm';
const presets = [
  { name: 'ss-base' },
  {
    name: method.endsWith('gcm') || method.endsWith('poly1305') ? 'ss-aead-cipher' : 'ss-stream-cipher',
    params: { method },
  },
];
const rssMB = (pid) => rssBytes(pid) / 2 ** 20;

function openEchoed(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write('x'));
    socket.once('data', () => resolve(socket));
    socket.once('error', reject);
  });
}

const echo = await startEchoTarget();
try {
  const server = await startOurRelay('server', { key: 'idle', presets });
  const client = await startOurRelay('client', {
    key: 'idle',
    presets,
    args: ['--server', `127.0.0.1:${server.port}`, '--forward', `127.0.0.1:${echo.address.port}`],
  });
  const before = { client: rssMB(client.child.pid), server: rssMB(server.child.pid) };
  const sockets = [];
  try {
    for (let i = 0; i < count; i += 50) {
      sockets.push(
        ...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => openEchoed(client.port)))),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const held = { client: rssMB(client.child.pid), server: rssMB(server.child.pid) };
    const total = (side) => side.client + side.server;
    console.log(
      JSON.stringify(
        {
          method,
          connections: sockets.length,
          rssMB: {
            before,
            held,
            totalBefore: total(before),
            totalHeld: total(held),
            growth: total(held) - total(before),
          },
        },
        (key, value) => (typeof value === 'number' ? Math.round(value * 10) / 10 : value),
      ),
    );
  } finally {
    for (const socket of sockets) socket.destroy();
  }
} catch (error) {
  process.stderr.write(`idle-connections: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  await stopAll();
  await echo.close();
}
