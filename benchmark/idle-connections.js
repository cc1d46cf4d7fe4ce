// What idle connections cost the relay pair (issue 6): starts a relay server
// and client (through the CLI, with the runner's node flags) in front of an echo
// target, opens N connections through them, each proven end to end by one
// echoed byte, holds them, and reads both relays' RSS from /proc.
//   node benchmark/idle-connections.js [N=1000] [METHOD=aes-256-gcm]
// Loopback only; every connection is closed before it exits.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { RELAY_NODE_FLAGS } from '../lib/relay/node-flags.js';
import { startEchoTarget } from '../lib/traffic/echo-target.js';

const count = Number(process.argv[2] ?? 1000);
const method = process.argv[3] ?? 'aes-256-gcm';
const PORTS = { client: 29181, server: 29182 };
const cli = fileURLToPath(new URL('../bin/cipherbench.js', import.meta.url));
const presets = JSON.stringify([{ name: 'ss-base' }, { name: method.endsWith('gcm') || method.endsWith('poly1305') ? 'ss-aead-cipher' : 'ss-stream-cipher', params: { method } }]);
const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

function startRelay(args) {
  const child = spawn(process.execPath, [...RELAY_NODE_FLAGS, cli, 'relay', ...args, '--key', 'idle', '--presets', presets], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`relay ${args[0]} exited with ${code}`)));
  });
}

function openEchoed(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write('x'));
    socket.once('data', () => resolve(socket));
    socket.once('error', reject);
  });
}

const children = [];
const echo = await startEchoTarget();
try {
  const server = await startRelay(['server', '--listen', `127.0.0.1:${PORTS.server}`]);
  children.push(server);
  const client = await startRelay(['client', '--listen', `127.0.0.1:${PORTS.client}`, '--server', `127.0.0.1:${PORTS.server}`, '--forward', `127.0.0.1:${echo.address.port}`]);
  children.push(client);
  const before = { client: rssMB(client.pid), server: rssMB(server.pid) };
  const sockets = [];
  try {
    for (let i = 0; i < count; i += 50) {
      sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => openEchoed(PORTS.client)))));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const held = { client: rssMB(client.pid), server: rssMB(server.pid) };
    const total = (side) => side.client + side.server;
    console.log(JSON.stringify({
      method, connections: sockets.length,
      rssMB: { before, held, totalBefore: total(before), totalHeld: total(held), growth: total(held) - total(before) },
    }, (key, value) => (typeof value === 'number' ? Math.round(value * 10) / 10 : value)));
  } finally {
    for (const socket of sockets) socket.destroy();
  }
} catch (error) {
  process.stderr.write(`idle-connections: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  for (const child of children) child.kill('SIGTERM');
  await echo.close();
}
