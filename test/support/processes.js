import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LEGACY_FLAG } from '../../lib/crypto/legacy-provider.js';
import { dyingWithParent } from '../../lib/process/death-signal.js';
import { chainNeedsLegacyProvider } from '../../lib/chain/requirements.js';
import { listeningInodes } from '../../lib/process/socket-table.js';
import { RELAY_NODE_FLAGS } from '../../lib/relay/node-flags.js';
import { CATALOGUE } from '../../lib/presets/index.js';

export const CLI = fileURLToPath(new URL('../../bin/cipherbench.js', import.meta.url));

// Starts a child and resolves once a line of its output matches `ready`
// and, when `listening` names a port, that port listens (shadowsocks-libev
// prints its 'listening at' line just before it binds); rejects with its
// output if it exits first or takes too long. Every child is remembered so
// stopAll() leaves nothing running after a test, and dies with the test's
// process if that ends first.
const children = new Set();

// The readiness bound is for a program that never becomes ready; on a
// loaded machine a healthy one has taken over 10 s (blinksocks, starting
// beside the whole suite), so it is generous.
// `env` replaces the environment; `detached` puts the child in a group of
// its own, which a test may signal whole.
export function startProcess(
  command,
  args,
  { ready, listening, timeoutMs = 30_000, env = process.env, detached = false } = {},
) {
  // Under setpriv --pdeathsig, as the runner starts its children: a test
  // file's process that dies (a crash, a kill) takes its relays with it.
  const child = spawn(...dyingWithParent(command, args), { stdio: ['ignore', 'pipe', 'pipe'], env, detached });
  children.add(child);
  child.output = '';
  const append = (data) => {
    child.output += data;
  };
  child.stdout.setEncoding('utf8').on('data', append);
  child.stderr.setEncoding('utf8').on('data', append);
  child.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  if (!ready) return Promise.resolve(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const check = async () => {
      if (!ready.test(child.output)) return;
      child.stdout.off('data', check);
      child.stderr.off('data', check);
      while (listening !== undefined && !failed && !((await listeningInodes(listening))?.size > 0)) await sleep(10);
      clearTimeout(timer);
      resolve(child);
    };
    let failed = false;
    const fail = (why) => {
      failed = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')}: ${why}\n${child.output}`));
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => fail(`exited with ${code} before it was ready`));
  });
}

// For a failing path's error: the output of every process along it.
export const explainWith = (children) => (path, error) => {
  error.message += `\n${children.map((child) => child.output).join('\n')}`;
  return error;
};

export async function stopAll() {
  const waits = [...children].map((child) => {
    child.kill('SIGTERM');
    return child.exited;
  });
  await Promise.all(waits);
}

// Our relays as the runner starts them (lib/peers/ours.js).
const nodeArgs = (presets, nodeFlags = []) => [
  ...RELAY_NODE_FLAGS,
  ...(chainNeedsLegacyProvider(CATALOGUE, presets) ? [LEGACY_FLAG] : []),
  ...nodeFlags,
  CLI,
];

// A relay started on port 0 says which port it got: child.port.
const withPort = (child) => {
  child.port = Number(/listening on \S+:(\d+)/.exec(child.output)[1]);
  return child;
};

// nodeFlags: more flags for node (an --import hook); env: the relay's
// environment, if not this process's.
export function startRelayServer({ port = 0, key, presets, extra = [], nodeFlags = [], env }) {
  return startProcess(
    process.execPath,
    [
      ...nodeArgs(presets, nodeFlags),
      'relay',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--key',
      key,
      '--presets',
      JSON.stringify(presets),
      ...extra,
    ],
    { ready: /listening on /, env },
  ).then(withPort);
}

// inbound: 'socks5' or 'http' in place of the tunnel to forwardPort.
export function startRelayClient({ port = 0, serverPort, forwardPort, key, presets, inbound = 'tunnel', extra = [] }) {
  return startProcess(
    process.execPath,
    [
      ...nodeArgs(presets),
      'relay',
      'client',
      '--listen',
      `127.0.0.1:${port}`,
      '--server',
      `127.0.0.1:${serverPort}`,
      ...(inbound === 'tunnel' ? ['--forward', `127.0.0.1:${forwardPort}`] : ['--inbound', inbound]),
      '--key',
      key,
      '--presets',
      JSON.stringify(presets),
      ...extra,
    ],
    { ready: /listening on / },
  ).then(withPort);
}

// shadowsocks-libev on loopback: ss-server on `port`; ss-local (SOCKS5)
// and ss-tunnel from `port` through the server at `serverPort`, ss-tunnel
// to `forwardPort` (support/simple-obfs.js adds its plugin to the same
// arguments).
export const ssServerArgs = ({ port, key, method }) => ['-s', '127.0.0.1', '-p', String(port), '-k', key, '-m', method];

const ssLocalArgs = ({ port, serverPort, key, method }) => [
  '-s',
  '127.0.0.1',
  '-p',
  String(serverPort),
  '-b',
  '127.0.0.1',
  '-l',
  String(port),
  '-k',
  key,
  '-m',
  method,
];

export const ssTunnelArgs = (options) => [...ssLocalArgs(options), '-L', `127.0.0.1:${options.forwardPort}`];

export const startSsServer = (options) =>
  startProcess('ss-server', ssServerArgs(options), { ready: /listening at/, listening: options.port });

export const startSsTunnel = (options) =>
  startProcess('ss-tunnel', ssTunnelArgs(options), { ready: /listening at/, listening: options.port });

export const startSsLocal = (options) =>
  startProcess('ss-local', ssLocalArgs(options), { ready: /listening at/, listening: options.port });
