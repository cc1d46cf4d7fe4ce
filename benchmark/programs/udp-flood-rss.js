// What the flood of test/serial/udp-relay-hostile.test.js costs a UDP relay
// server in resident memory: ours beside shadowsocks-libev's ss-server and
// shadowsocks-rust's ssserver. Each server fresh, --udp-timeout 8, in front
// of an echo target; a genuine sender's 200 datagrams, then the baseline;
// then, while the genuine sender carries 1,000 more, 601 hostile datagrams
// (garbage, truncated, bit-flipped, another key's) and one datagram of
// 1,200 bytes from each of 10,000 senders of their own (127.2.0.0/16),
// 100 at a time, 30 ms apart. Growth is the peak RSS, sampled every 100 ms,
// less the baseline; [heap] is the main malloc arena at the end.
//   node benchmark/programs/udp-flood-rss.js [--rounds 3] [--servers ours,libev,rust,rust-1024]
//     [--methods aes-256-gcm,2022-blake3-aes-256-gcm] [--senders 10000]
// `ours` is started with the relay's node flags, as the runner starts it;
// `rust-1024` is ssserver with --udp-max-associations 1024, our default
// (ssserver keeps every association by default; ss-server keeps 512,
// evicting the oldest). ss-server has no 2022 method. Loopback only;
// everything it starts is stopped before it exits.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { prepareUdpChain } from '../../lib/chain/udp-form.js';
import { newPsk } from '../../lib/crypto/aead-2022-methods.js';
import { RELAY_NODE_FLAGS } from '../../lib/relay/node-flags.js';
import { median } from '../../lib/statistics/summaries.js';
import { hostileDatagrams } from './support/hostile.js';
import { CATALOGUE } from '../../lib/presets/index.js';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', 3));
const servers = option('--servers', 'ours,libev,rust,rust-1024').split(',');
const methods = option('--methods', 'aes-256-gcm,2022-blake3-aes-256-gcm').split(',');
const senders = Number(option('--senders', 10_000));
const CLI = fileURLToPath(new URL('../../bin/cipherbench.js', import.meta.url));
const TIMEOUT_S = 8;
const is2022 = (method) => method.startsWith('2022-');
const presetsFor = (method) =>
  is2022(method)
    ? [{ name: 'ss-2022', params: { method } }]
    : [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const mb = (bytes) => bytes / 2 ** 20;

function rss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

function mainArena(pid) {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const at = smaps.indexOf('[heap]');
  return at < 0 ? 0 : Number(/Rss:\s+(\d+) kB/.exec(smaps.slice(at))[1]) * 1024;
}

const bound = async (socket, host = '127.0.0.1') => {
  await new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, host, resolve);
  });
  return socket;
};

async function freePort() {
  const socket = await bound(dgram.createSocket('udp4'));
  const { port } = socket.address();
  await new Promise((resolve) => socket.close(resolve));
  return port;
}

// Resolves once a line of its output matches `ready`.
function start(command, argv, ready) {
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  child.exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command}: not ready after 30 s\n${child.output}`)), 30_000);
    const append = (data) => {
      child.output += data;
      if (ready.test(child.output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.setEncoding('utf8').on('data', append);
    child.stderr.setEncoding('utf8').on('data', append);
    child.once('exit', (code) =>
      reject(new Error(`${command} exited with ${code} before it was ready\n${child.output}`)),
    );
  });
}

async function startServer(server, method, key) {
  if (server === 'ours') {
    const child = await start(
      process.execPath,
      [
        ...RELAY_NODE_FLAGS,
        CLI,
        'relay',
        'server',
        '--listen',
        '127.0.0.1:0',
        '--key',
        key,
        '--presets',
        JSON.stringify(presetsFor(method)),
        '--udp',
        '--udp-timeout',
        String(TIMEOUT_S),
      ],
      /listening on /,
    );
    return { child, port: Number(/listening on \S+:(\d+)/.exec(child.output)[1]) };
  }
  const port = await freePort();
  if (server === 'libev')
    return {
      child: await start(
        'ss-server',
        ['-s', '127.0.0.1', '-p', String(port), '-k', key, '-m', method, '-U', '-t', String(TIMEOUT_S)],
        /udp server listening at/,
      ),
      port,
    };
  const cap = server === 'rust-1024' ? ['--udp-max-associations', '1024'] : [];
  return {
    child: await start(
      'ssserver',
      ['-s', `127.0.0.1:${port}`, '-k', key, '-m', method, '-U', '--udp-timeout', String(TIMEOUT_S), ...cap],
      /udp server listening on/,
    ),
    port,
  };
}

async function flood(server, method) {
  const key = is2022(method) ? newPsk(method) : 'udp-flood-rss-key';
  const presets = presetsFor(method);
  const chain = prepareUdpChain(CATALOGUE, presets, { password: key });
  const echo = await bound(dgram.createSocket('udp4'));
  echo.on('message', (datagram, from) => echo.send(datagram, from.port, from.address));
  const { child, port } = await startServer(server, method, key);
  const target = { host: '127.0.0.1', port: echo.address().port };
  const genuine = chain.client();
  const genuineSocket = await bound(dgram.createSocket('udp4'));
  let returned = 0;
  genuineSocket.on('message', () => {
    returned += 1;
  });
  const carry = async (count) => {
    for (let i = 0; i < count; i++) {
      genuineSocket.send(genuine.encode(target, randomBytes(1200)), port, '127.0.0.1');
      if (i % 4 === 3) await sleep(2);
    }
  };
  try {
    await carry(200);
    await sleep(300);
    const baseline = rss(child.pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(child.pid));
    }, 100);
    const valid = chain.client().encode(target, randomBytes(1200));
    const other = prepareUdpChain(CATALOGUE, presets, { password: is2022(method) ? newPsk(method) : 'another key' });
    const hostile = hostileDatagrams(valid, () => other.client().encode(target, randomBytes(100)));
    const during = carry(1000);
    const probe = await bound(dgram.createSocket('udp4'));
    for (const datagram of hostile) await new Promise((resolve) => probe.send(datagram, port, '127.0.0.1', resolve));
    probe.close();
    for (let start = 0; start < senders; start += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, senders - start) }, (_, offset) => {
          const i = start + offset;
          return bound(
            dgram.createSocket('udp4'),
            `127.${2 + Math.floor(i / 62_500)}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`,
          );
        }),
      );
      await Promise.all(
        batch.map(
          (socket) =>
            new Promise((resolve) =>
              socket.send(chain.client().encode(target, randomBytes(1200)), port, '127.0.0.1', resolve),
            ),
        ),
      );
      await sleep(30);
      for (const socket of batch) socket.close();
    }
    await during;
    await sleep(500);
    clearInterval(sampler);
    peak = Math.max(peak, rss(child.pid));
    return { baseline: mb(baseline), growth: mb(peak - baseline), arena: mb(mainArena(child.pid)), returned };
  } finally {
    child.kill('SIGTERM');
    await child.exited;
    genuineSocket.close();
    echo.close();
  }
}

const results = new Map();
for (let round = 1; round <= rounds; round++) {
  for (const method of methods) {
    for (const server of servers) {
      if (server === 'libev' && is2022(method)) continue;
      const { baseline, growth, arena, returned } = await flood(server, method);
      const name = `${server} ${method}`;
      results.set(name, [...(results.get(name) ?? []), growth]);
      console.log(
        `round ${round} ${name}: ${baseline.toFixed(1)} MB before, +${growth.toFixed(1)} MB at the peak, [heap] ${arena.toFixed(1)} MB at the end, ${returned} of 1,200 genuine datagrams back`,
      );
    }
  }
}
for (const [name, growths] of results) {
  console.log(
    `${name}: +${Math.min(...growths).toFixed(1)} / +${median(growths).toFixed(1)} / +${Math.max(...growths).toFixed(1)} MB (min / median / max of ${growths.length})`,
  );
}
