import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startEchoServer } from './echo-server.js';
import { freePorts } from './ports.js';
import { startRelayClient, startRelayServer, stopAll } from './processes.js';
import { echoTransfer } from '../../benchmark/programs/support/transfer.js';

// The skeleton every wire-compatibility test shares: one echo target for a
// describe block, and paths (our client to the reference server, the
// reference client to our server, ours to ours) that each carry random
// bytes to it and back, checked with SHA-256 at both ends.

// The block's echo target, up before its first test; after the last, every
// child is stopped, then `cleanup` runs (a peer's temporary folders), then
// the target closes. Read `echo.port` and `echo.received` inside tests.
export function sharedEchoTarget({ cleanup } = {}) {
  const echo = {};
  before(async () => {
    const server = await startEchoServer();
    Object.assign(echo, { port: server.port, received: server.received, close: server.close });
  });
  after(async () => {
    await stopAll();
    await cleanup?.();
    await echo.close?.();
  });
  return echo;
}

// Starts the three paths to `echo` for a reference that is a server and a
// client told their ports: our client to `startTheirServer(port)`,
// `startTheirClient({ port, serverPort, forwardPort })` to our server
// (started with `serverExtra`), and ours to ours. Resolves with the entry
// port of each, and our server for tests that probe it afterwards.
export async function startReferencePaths(
  echo,
  { key, presets, serverExtra = [], startTheirServer, startTheirClient },
) {
  const forwardPort = echo.port;
  const [ourServer, pairServer] = await Promise.all([
    startRelayServer({ key, presets, extra: serverExtra }),
    startRelayServer({ key, presets }),
  ]);
  const [theirServerPort, theirClientPort] = await freePorts(2);
  const [ourClient, pairClient, theirServer, theirClient] = await Promise.all([
    startRelayClient({ serverPort: theirServerPort, forwardPort, key, presets }),
    startRelayClient({ serverPort: pairServer.port, forwardPort, key, presets }),
    startTheirServer(theirServerPort),
    startTheirClient({ port: theirClientPort, serverPort: ourServer.port, forwardPort }),
  ]);
  const paths = { ourClient: ourClient.port, theirClient: theirClientPort, pairClient: pairClient.port, ourServer };
  // The processes along each path, whose output a failed transfer shows
  // (not enumerable: callers spread the ports into their own maps).
  return Object.defineProperty(paths, 'along', {
    value: {
      ourClient: [ourClient, theirServer],
      theirClient: [theirClient, ourServer],
      pairClient: [pairClient, pairServer],
    },
  });
}

const namePath = (path, error) => {
  error.message = `${path}: ${error.message}`;
  return error;
};

// Carries `size` random bytes through each entry port of `paths`
// ({ 'ours -> ss-server': port, ... }) to `echo` and back: all at once, or
// `oneAtATime` where the processes on both paths would crowd 2 cores.
// Every byte must come back unchanged, each path must make one connection
// to the target, and what arrived there must hash as what was sent.
// `explain(path, error)` may add the processes' output to a failed transfer;
// by default it names the path, which a port alone does not.
// `transfer(path)` gives more options of echoTransfer for a path.
export async function assertCarried(
  echo,
  paths,
  { size, oneAtATime = false, explain = namePath, transfer = () => ({}) },
) {
  const before = echo.received.length;
  const carry = ([path, port]) =>
    echoTransfer({ port, size, ...transfer(path) }).then(
      (result) => ({ path, ...result }),
      (error) => {
        throw explain(path, error);
      },
    );
  const results = [];
  if (oneAtATime) {
    for (const entry of Object.entries(paths)) results.push(await carry(entry));
  } else {
    results.push(...(await Promise.all(Object.entries(paths).map(carry))));
  }
  for (const { path, sent, returned, bytesBack } of results) {
    assert.equal(bytesBack, size, `${path}: bytes back`);
    assert.equal(returned, sent, `${path}: data came back changed`);
  }
  const farEnd = await Promise.all(echo.received.slice(before).map((record) => record.closed));
  assert.equal(farEnd.length, results.length, 'each path made one connection to the echo target');
  assert.deepEqual(
    farEnd.map((record) => record.sha256).sort(),
    results.map((result) => result.sent).sort(),
    'bytes at the far end equal the bytes sent',
  );
  assert.ok(
    farEnd.every((record) => record.bytes === size),
    'the echo target received every byte of each path',
  );
  return results;
}

// The three paths of startReferencePaths to a reference `program`, one at a
// time (its processes and ours on both paths would crowd 2 cores), each
// named by the way it goes; `options` as assertCarried's.
export function assertCarriedEachWay(echo, program, paths, options) {
  const entries = {
    [`ours -> ${program}`]: 'ourClient',
    [`${program} -> ours`]: 'theirClient',
    'ours -> ours': 'pairClient',
  };
  // A failed path names itself and shows what its two processes said:
  // one path to or from Xray failed at load 10 with nothing else to go on.
  const explain = (path, error) => {
    const said = (paths.along?.[entries[path]] ?? []).map((child) => child?.output?.trim()).filter(Boolean);
    error.message = [error.message, ...said].join('\n');
    return namePath(path, error);
  };
  const ports = Object.fromEntries(Object.entries(entries).map(([path, name]) => [path, paths[name]]));
  return assertCarried(echo, ports, { oneAtATime: true, explain, ...options });
}
