import { spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { listeningInodes } from '../../../lib/process/socket-table.js';
import { RELAY_NODE_FLAGS } from '../../../lib/relay/node-flags.js';

// What the programs start: our relays and other implementations, each
// remembered so that stopAll() leaves nothing running when a row ends.
// The programs run alone on an idle machine, one at a time, so a port
// taken from the OS and released a moment before a program binds it is
// good enough here (the tests, which run side by side, draw theirs from
// test/support/ports.js).

export const CLI = fileURLToPath(new URL('../../../bin/cipherbench.js', import.meta.url));

const children = new Set();

// Starts `command` and resolves with the child (its output so far in
// child.output) once that output matches `ready` and, when `listening`
// names a port, that port listens (shadowsocks-libev prints its 'listening
// at' line just before it binds); rejects with the output if the child
// exits first.
export function startProcess(command, args, { ready, listening, env = process.env } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  children.add(child);
  child.output = '';
  child.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return new Promise((resolve, reject) => {
    let seen = false;
    const append = async (data) => {
      child.output += data;
      if (seen || !ready.test(child.output)) return;
      seen = true;
      while (listening !== undefined && child.exitCode === null && !((await listeningInodes(listening))?.size > 0))
        await sleep(10);
      resolve(child);
    };
    child.stdout.setEncoding('utf8').on('data', append);
    child.stderr.setEncoding('utf8').on('data', append);
    child.once('exit', (code) =>
      reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${child.output}`)),
    );
  });
}

// Kills every child still running and waits until each has exited.
export async function stopAll() {
  await Promise.all(
    [...children].map((child) => {
      child.kill('SIGKILL');
      return child.exited;
    }),
  );
}

// One side of our relay pair through the CLI, on port 0 unless `listen`
// names one; resolves with the child and the port it says it listens on.
// `nodeFlags` are the runner's (lib/peers/ours.js) unless given; `cli`
// runs another checkout's bin/cipherbench.js.
export async function startOurRelay(
  side,
  { key, presets, nodeFlags = RELAY_NODE_FLAGS, cli = CLI, listen = '127.0.0.1:0', args = [], env } = {},
) {
  const argv = [
    ...nodeFlags,
    cli,
    'relay',
    side,
    '--listen',
    listen,
    ...args,
    '--key',
    key,
    '--presets',
    typeof presets === 'string' ? presets : JSON.stringify(presets),
  ];
  const child = await startProcess(process.execPath, argv, { ready: /listening on \S+:\d+/, env });
  return { child, port: Number(/listening on \S+:(\d+)/.exec(child.output)[1]) };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net
      .createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = probe.address();
        probe.close(() => resolve(port));
      });
  });
}
