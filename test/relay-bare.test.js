import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, test } from 'node:test';
import { bindServer } from '../lib/relay/listener.js';
import { CLI, startProcess, stopAll } from './support/processes.js';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

// The bare Node relay pair (the bare-node reference row): two
// `cipherbench bare-relay` processes carry a TCP stream and UDP datagrams
// unchanged, and the runner measures the row as any other.
const closers = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
  await stopAll();
});

const sha256 = (buffer) => createHash('sha256').update(buffer).digest('hex');
const bare = (listenPort, forwardPort) =>
  startProcess(
    process.execPath,
    [CLI, 'bare-relay', '--listen', `127.0.0.1:${listenPort}`, '--forward', `127.0.0.1:${forwardPort}`, '--udp'],
    { ready: /listening on / },
  ).then((child) => Object.assign(child, { port: Number(/listening on \S+:(\d+)/.exec(child.output)[1]) }));

test('a TCP stream and UDP datagrams cross the pair unchanged', async () => {
  // An echo target on one port number for TCP and UDP.
  const echo = net.createServer((socket) => socket.pipe(socket));
  const target = await bindServer(echo, { host: '127.0.0.1', port: 0 });
  closers.push(() => new Promise((resolve) => echo.close(resolve)));
  const udpEcho = dgram.createSocket('udp4');
  await new Promise((resolve) => udpEcho.bind(target.port, '127.0.0.1', resolve));
  udpEcho.on('message', (message, from) => udpEcho.send(message, from.port, from.address));
  closers.push(() => new Promise((resolve) => udpEcho.close(resolve)));

  const server = await bare(0, target.port);
  const client = await bare(0, server.port);

  const payload = randomBytes(4 * 1024 * 1024);
  const received = await new Promise((resolve, reject) => {
    const chunks = [];
    let length = 0;
    const socket = net.connect(client.port, '127.0.0.1', () => socket.end(payload));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length === payload.length) socket.destroy();
    });
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
  assert.equal(sha256(received), sha256(payload));

  const sender = dgram.createSocket('udp4');
  closers.push(() => new Promise((resolve) => sender.close(resolve)));
  const datagram = randomBytes(1200);
  const answer = await new Promise((resolve) => {
    sender.on('message', resolve);
    // Datagrams may be lost: send again until one comes back.
    const again = setInterval(() => sender.send(datagram, client.port, '127.0.0.1'), 100);
    sender.send(datagram, client.port, '127.0.0.1');
    sender.once('message', () => clearInterval(again));
  });
  assert.equal(sha256(answer), sha256(datagram));
});

test("the bare-node row runs as any reference row, with its relays' cost", { timeout: 60_000 }, async () => {
  const cwd = emptyFolder();
  const file = path.join(cwd, 'cases.json');
  writeFileSync(file, JSON.stringify([{ impl: 'bare-node' }]));
  const result = await runCli(
    [
      'run',
      file,
      '--duration',
      '1',
      '--engine',
      'node',
      '--no-ceiling',
      '--no-archive',
      '--json',
      '-',
      ...(await freePortsFlag()),
    ],
    { cwd },
  );
  assert.equal(result.code, 0, result.stderr);
  const [row] = JSON.parse(result.stdout).cases;
  assert.equal(row.status, 'ok');
  assert.equal(
    row.label ?? 'bare Node relay pair (accept, connect, pipe)',
    'bare Node relay pair (accept, connect, pipe)',
  );
  assert.ok(row.receiver.bits_per_second > 0);
  assert.ok(row.cost.client.cpuSeconds > 0 && row.cost.server.cpuSeconds > 0, JSON.stringify(row.cost));
  assert.match(result.stderr, /bare Node relay pair \(accept, connect, pipe\)/);
});
