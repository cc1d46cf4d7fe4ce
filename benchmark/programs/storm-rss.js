// What a storm of hostile connections costs an aes-256-gcm relay server in
// resident memory, ours beside shadowsocks-libev's ss-server, measured the
// way test/support/suites/storm.js measures it: each server fresh, in front
// of an echo target, reached through our relay client; RSS idle, after 16 MB
// of valid traffic (the baseline), and after the storm (CONCURRENCY at a
// time, STALLS of them one byte then nothing, the rest the storm's kinds in
// turn, while a steady valid stream flows). Rounds alternate the servers.
//   node benchmark/programs/storm-rss.js [--rounds 5] [--connections 3000] [--servers ours,libev] [--cli PATH]
// A server is `ours` (started with the relay's node flags, as the runner
// starts it), `ours-by-hand` (as a person starts it, `node
// bin/cipherbench.js relay server ...` with no flags: the bin adds them and
// the relay runs in its child, whose RSS is measured), `ours-node-defaults`
// (V8's default young generation, --max-semi-space-size=0; the relay still
// sets what it sets for itself) or `libev`. --cli runs another checkout's
// bin/cipherbench.js as ours. Loopback only; everything it starts is
// stopped before it exits.
import { setTimeout as sleep } from 'node:timers/promises';
import { RELAY_NODE_FLAGS } from '../../lib/relay/node-flags.js';
import { startEchoTarget } from '../../lib/traffic/echo-target.js';
import { sendHostile, stormKinds } from './support/hostile.js';
import { descendants, rssBytes } from './support/proc-stats.js';
import { CLI, freePort, startOurRelay, startProcess, stopAll } from './support/processes.js';
import { steadyStream } from './support/steady-stream.js';
import { echoTransfer } from './support/transfer.js';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', 5));
const connections = Number(option('--connections', 3000));
const servers = option('--servers', 'ours,libev').split(',');
for (const server of servers) {
  if (!['ours', 'ours-by-hand', 'ours-node-defaults', 'libev'].includes(server))
    throw new Error(`--servers: unknown server ${server}; valid: ours, ours-by-hand, ours-node-defaults, libev`);
}
const cli = option('--cli', CLI);
const STALLS = Math.round(connections / 10);
const CONCURRENCY = 100;
const HANDSHAKE_TIMEOUT_S = 2;
const KEY = 'storm-rss-key';
const METHOD = 'aes-256-gcm';
const PRESETS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: METHOD } }];
const mb = (bytes) => bytes / 2 ** 20;

// ss-server's -t is its socket timeout, the nearest to our handshake
// timeout; it did not cut the one-byte stalls, which this script then
// gives up on after 10 s and counts as held open. ss-server must be told a
// port; ours binds port 0 and says which.
async function startServer(server) {
  if (server === 'libev') {
    const port = await freePort();
    const child = await startProcess(
      'ss-server',
      ['-s', '127.0.0.1', '-p', String(port), '-k', KEY, '-m', METHOD, '-t', String(HANDSHAKE_TIMEOUT_S)],
      { ready: /listening at/, listening: port },
    );
    return { child, relay: child.pid, port };
  }
  const flags = { ours: RELAY_NODE_FLAGS, 'ours-by-hand': [], 'ours-node-defaults': ['--max-semi-space-size=0'] }[
    server
  ];
  const { NODE_OPTIONS, ...env } = process.env;
  const { child, port } = await startOurRelay('server', {
    key: KEY,
    presets: PRESETS,
    nodeFlags: flags,
    cli,
    args: ['--handshake-timeout', String(HANDSHAKE_TIMEOUT_S)],
    env,
  });
  // Started by hand, the relay may run in a child of the bin with its flags.
  const [relay = child.pid] = descendants(child.pid);
  return { child, relay, port };
}

async function storm(server) {
  const echo = await startEchoTarget();
  const target = { host: '127.0.0.1', port: echo.address.port };
  try {
    const { child, relay, port: serverPort } = await startServer(server);
    const client = await startOurRelay('client', {
      key: KEY,
      presets: PRESETS,
      args: ['--server', `127.0.0.1:${serverPort}`, '--forward', `127.0.0.1:${target.port}`],
    });
    const idle = rssBytes(relay);
    const warm = await echoTransfer({ port: client.port, size: 16 * 2 ** 20, timeoutMs: 120_000 });
    if (warm.returned !== warm.sent) throw new Error(`${server}: the warm-up came back changed`);
    await sleep(200);
    const warmed = rssBytes(relay);
    const steady = steadyStream(client.port);
    await sleep(300);

    const kinds = stormKinds(PRESETS, target, KEY, `not-${KEY}`);
    const names = Object.keys(kinds);
    let heldOpen = 0;
    const send = (connection) =>
      sendHostile({ port: serverPort, timeoutMs: 10_000, ...connection }).catch(() => (heldOpen += 1));
    const started = Date.now();
    const stalls = Array.from({ length: STALLS }, () => send({ bytes: Buffer.from([1]) }));
    let next = 0;
    const worker = async () => {
      while (next < connections - STALLS) await send(kinds[names[next++ % names.length]]());
    };
    await Promise.all([...stalls, ...Array.from({ length: CONCURRENCY }, worker)]);
    const seconds = (Date.now() - started) / 1000;
    const stream = await steady.finish();
    await sleep(1000);
    const after = rssBytes(relay);
    const alive = child.exitCode === null;
    await stopAll();
    return {
      server,
      idle: mb(idle),
      warmed: mb(warmed),
      after: mb(after),
      growth: mb(after - warmed),
      seconds,
      heldOpen,
      alive,
      streamIntact: stream.back === stream.sent && stream.sentBytes > 0,
    };
  } finally {
    await stopAll();
    await echo.close();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const results = Object.fromEntries(servers.map((server) => [server, []]));
try {
  for (let round = 1; round <= rounds; round++) {
    for (const server of round % 2 ? servers : [...servers].reverse()) {
      const result = await storm(server);
      results[server].push(result);
      console.log(
        `round ${round} ${server}: RSS idle ${result.idle.toFixed(1)}, after 16 MB ${result.warmed.toFixed(1)}, after ${connections} hostile ${result.after.toFixed(1)} MB (+${result.growth.toFixed(1)}); storm ${result.seconds.toFixed(1)} s, held open ${result.heldOpen}, server alive ${result.alive}, steady stream intact ${result.streamIntact}`,
      );
    }
  }
} finally {
  await stopAll();
}
for (const [server, list] of Object.entries(results)) {
  const summary = (key) => {
    const values = list.map((result) => result[key]);
    return `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)})`;
  };
  console.log(
    `${server}, median (min-max) of ${list.length}: idle ${summary('idle')}, after 16 MB ${summary('warmed')}, after the storm ${summary('after')}, growth +${summary('growth')} MB`,
  );
}
