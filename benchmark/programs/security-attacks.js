// Attacks on a relay server, measured the way docs/security.md reports
// them. Each row starts a fresh server on loopback, attacks it as someone
// without the key would (unless the row says "with key"), prints one line
// of figures and stops everything it started.
//   node --openssl-legacy-provider benchmark/programs/security-attacks.js [--server ours|libev] [--cli PATH] [ROW...]
// --cli runs another checkout's relay (e.g. main's) with the same attacks
// (our relays start with this checkout's node flags, as the runner's do);
// --server libev runs shadowsocks-libev's ss-server (and ss-tunnel where a
// row needs a client) for the SIP004 rows. ROW is any of: replay reflect
// probes bitflip replay-flood half-closed stalled zero-chunks killed (SIP004
// and stream ciphers), poison cut empty-chunks lockout sni (every family
// where the attack applies, our relay only), cap-flood (our relay), and
// ssr-idle-replay (11 minutes: not in the default list). Run it inside `unshare -n`.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { AEAD_METHODS } from '../../lib/crypto/aead-methods.js';
import { evpBytesToKey } from '../../lib/crypto/evp-bytes-to-key.js';
import { deriveSubkey } from '../../lib/crypto/hkdf-subkey.js';
import { addLittleEndian } from '../../lib/crypto/nonce.js';
import { encodeAddressHeader } from '../../lib/wire/address-header.js';
import { prepareChain } from '../../lib/chain/pipeline.js';
import { clientHello } from '../../lib/presets/obfs/tls-handshake.js';
import { RELAY_NODE_FLAGS } from '../../lib/relay/node-flags.js';
import { emptyChunkFlood } from './support/hostile.js';
import { pipelinePair } from './support/pipeline-pair.js';
import { cpuSeconds, fdCount, rssBytes } from './support/proc-stats.js';
import { CLI, freePort, startOurRelay, startProcess, stopAll } from './support/processes.js';
import { stallFlow } from './support/stalled-flow.js';
import { CATALOGUE } from '../../lib/presets/index.js';

const args = process.argv.slice(2);
const flag = (name, fallback) => (args.includes(name) ? args.splice(args.indexOf(name), 2)[1] : fallback);
const kind = flag('--server', 'ours');
const cli = flag('--cli', CLI);
const rows =
  args.length > 0
    ? args
    : [
        'replay',
        'reflect',
        'probes',
        'bitflip',
        'replay-flood',
        'half-closed',
        'stalled',
        'zero-chunks',
        'killed',
        'poison',
        'cut',
        'empty-chunks',
        'lockout',
        'sni',
        'cap-flood',
      ];
const KEY = 'attack-key';

const chain = (method) => [
  { name: 'ss-base' },
  { name: AEAD_METHODS[method] ? 'ss-aead-cipher' : 'ss-stream-cipher', params: { method } },
];
const rssMB = (pid) => rssBytes(pid) / 2 ** 20;
// Our relays start with this checkout's node flags, as the runner's do.
const ours = { key: KEY, cli, nodeFlags: [...RELAY_NODE_FLAGS, '--openssl-legacy-provider'] };

async function startServer(method) {
  const port = await freePort();
  const child =
    kind === 'libev'
      ? await startProcess('ss-server', ['-s', '127.0.0.1', '-p', String(port), '-k', KEY, '-m', method], {
          ready: /listening at/,
          listening: port,
        })
      : (await startOurRelay('server', { ...ours, listen: `127.0.0.1:${port}`, presets: chain(method) })).child;
  return { port, pid: child.pid, child };
}

async function startClient(method, serverPort, targetPort) {
  const port = await freePort();
  if (kind === 'libev') {
    await startProcess(
      'ss-tunnel',
      [
        '-s',
        '127.0.0.1',
        '-p',
        String(serverPort),
        '-b',
        '127.0.0.1',
        '-l',
        String(port),
        '-L',
        `127.0.0.1:${targetPort}`,
        '-k',
        KEY,
        '-m',
        method,
      ],
      { ready: /listening at/, listening: port },
    );
  } else {
    await startOurRelay('client', {
      ...ours,
      listen: `127.0.0.1:${port}`,
      presets: chain(method),
      args: ['--server', `127.0.0.1:${serverPort}`, '--forward', `127.0.0.1:${targetPort}`],
    });
  }
  return port;
}

// A target that counts connections and what they sent; `echo` answers.
async function startTarget({ echo = true, read = true } = {}) {
  const target = { connections: 0, bytes: 0, sockets: new Set() };
  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: !read }, (socket) => {
    target.connections += 1;
    target.sockets.add(socket);
    target.onSocket?.(socket);
    socket.on('error', () => {});
    socket.on('close', () => target.sockets.delete(socket));
    if (!read) return;
    socket.on('data', (data) => {
      target.bytes += data.length;
      if (echo) socket.write(data);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.port = server.address().port;
  target.close = () => {
    for (const socket of target.sockets) socket.destroy();
    server.close();
  };
  return target;
}

const clientBytes = (method, target, payload = Buffer.from('GET / HTTP/1.1\r\n\r\n')) => {
  const out = [];
  prepareChain(CATALOGUE, chain(method), { password: KEY })('client', { target }).encoder((data) => out.push(data))(
    payload,
  );
  return Buffer.concat(out);
};

// Connects, sends, and reports how the server ended it: 'FIN', 'RST' or
// 'open' (still open after holdMs), after how long, and what came back.
// libuv reports a reset that arrives during a read as an end, so an end
// counts as a FIN only if an empty write back then succeeds.
function probe(port, bytes, { holdMs = 14_000, end = false } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const back = [];
    let settled = false;
    const done = (how) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ how, ms: Date.now() - started, back: Buffer.concat(back) });
    };
    const timer = setTimeout(() => done('open'), holdMs);
    socket.on('connect', () => (end ? socket.end(bytes) : socket.write(bytes)));
    socket.on('data', (data) => back.push(data));
    socket.on('end', () =>
      socket.writable ? socket.write(Buffer.alloc(0), (error) => done(error ? 'RST' : 'FIN')) : done('FIN'),
    );
    socket.on('error', (error) => done(error.code === 'ECONNRESET' ? 'RST' : error.code));
    socket.on('close', () => done('close'));
  });
}

// One chain of each family the relay carries, with the key it takes.
const VMESS_ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const FAMILIES = {
  'ss-aead aes-256-gcm': { presets: chain('aes-256-gcm') },
  'ss-2022 aes-256-gcm': {
    presets: [{ name: 'ss-2022', params: { method: '2022-blake3-aes-256-gcm' } }],
    key: Buffer.alloc(32, 0x22).toString('base64'),
  },
  'aead-random aes-256-gcm': {
    presets: [{ name: 'ss-base' }, { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } }],
  },
  'vmess aes-128-gcm': { presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'aes-128-gcm' } }] },
  'ssr auth_aes128_sha1 aes-256-ctr': {
    presets: [
      { name: 'ss-base' },
      { name: 'ssr-auth-aes128-sha1' },
      { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
    ],
  },
  'ssr auth_chain_a none': {
    presets: [
      { name: 'ss-base' },
      { name: 'ssr-auth-chain-a' },
      { name: 'ss-stream-cipher', params: { method: 'none' } },
    ],
  },
  'base-auth + aes-256-gcm + obfs-tls1.2-ticket': {
    presets: [
      { name: 'base-auth' },
      { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
      { name: 'obfs-tls1.2-ticket', params: { sni: 'test.com' } },
    ],
  },
};
const familyKey = (family) => family.key ?? KEY;

async function startFamilyServer(family) {
  const port = await freePort();
  const argv = [
    '--openssl-legacy-provider',
    cli,
    'relay',
    'server',
    '--listen',
    `127.0.0.1:${port}`,
    '--key',
    familyKey(family),
    '--presets',
    JSON.stringify(family.presets),
  ];
  const child = await startProcess(process.execPath, argv, { ready: /listening on/ });
  return { port, pid: child.pid, child };
}

// What a genuine client of the family sends: a request, then `more` in a
// later write; made in memory (handshakes answered there), so no server
// of the attack has seen it.
function genuineBytes(family, target, more = Buffer.alloc(0)) {
  const pair = pipelinePair(family.presets, { password: familyKey(family), target });
  pair.clientWrite(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
  pair.flush();
  if (more.length > 0) {
    pair.clientWrite(more);
    pair.flush();
  }
  return pair.sent();
}

const ROWS = {
  async replay() {
    for (const method of ['aes-256-gcm', 'aes-256-ctr']) {
      const target = await startTarget();
      const server = await startServer(method);
      const bytes = clientBytes(method, { host: '127.0.0.1', port: target.port });
      await probe(server.port, bytes, { holdMs: 300 });
      await sleep(2000);
      const before = target.connections;
      await Promise.all([1, 2, 3].map(() => probe(server.port, bytes, { holdMs: 1000 })));
      console.log(
        `replay ${method}: original reached the target: ${before === 1}; replays 2 s later reaching the target: ${target.connections - before}/3`,
      );
      target.close();
      await stopAll();
    }
  },

  async reflect() {
    for (const method of ['aes-256-gcm', 'aes-256-ctr']) {
      const target = await startTarget();
      const server = await startServer(method);
      const address = { host: '127.0.0.1', port: target.port };
      const { back } = await probe(
        server.port,
        clientBytes(method, address, Buffer.concat([encodeAddressHeader(address), Buffer.from('x')])),
        { holdMs: 500 },
      );
      const before = target.connections;
      const result = await probe(server.port, back, { holdMs: 1000 });
      console.log(
        `reflect ${method}: the server's own ${back.length} downstream bytes sent back as a client stream: ${target.connections - before} target connection(s), server ${result.how} after ${result.ms} ms`,
      );
      target.close();
      await stopAll();
    }
  },

  async probes() {
    const lengths = [1, 16, 17, 33, 34, 41, 42, 49, 50, 51, 100, 1000, 2000, 200_000];
    for (const method of ['aes-256-gcm', 'chacha20-ietf-poly1305', 'aes-128-gcm', 'aes-256-ctr']) {
      const server = await startServer(method);
      const results = await Promise.all(
        lengths.map((length) =>
          probe(
            server.port,
            Buffer.alloc(length, 0x5a).map(() => Math.floor(Math.random() * 256)),
          ),
        ),
      );
      console.log(
        `probes ${method}: ${results.map((r, i) => `${lengths[i]} B ${r.how}${r.how === 'open' ? '' : ` ${(r.ms / 1000).toFixed(2)} s`}`).join(', ')}`,
      );
      await stopAll();
    }
  },

  async bitflip() {
    for (const method of ['aes-256-ctr', 'chacha20-ietf', 'rc4-md5']) {
      const victim = await startTarget();
      const attacker = await startTarget({ echo: false });
      const server = await startServer(method);
      const request = Buffer.from('GET /secret HTTP/1.1\r\nHost: bank\r\nCookie: session=0123456789abcdef\r\n\r\n');
      const captured = clientBytes(method, { host: '127.0.0.1', port: victim.port }, request);
      await probe(server.port, captured, { holdMs: 300 });
      // IPv4 header: ATYP, 4 address bytes, then the port, right after the IV.
      const ivLength = captured.length - 7 - request.length;
      const flipped = Buffer.from(captured);
      const portXor = victim.port ^ attacker.port;
      flipped[ivLength + 5] ^= portXor >> 8;
      flipped[ivLength + 6] ^= portXor & 0xff;
      await probe(server.port, flipped, { holdMs: 1000 });
      console.log(
        `bitflip ${method}: the attacker's port got ${attacker.connections} connection(s) and ${attacker.bytes}/${request.length} bytes of the victim's request`,
      );
      victim.close();
      attacker.close();
      await stopAll();
    }
  },

  async 'replay-flood'() {
    const method = 'aes-256-gcm';
    const target = await startTarget();
    const server = await startServer(method);
    const bytes = clientBytes(method, { host: '127.0.0.1', port: target.port });
    await probe(server.port, bytes, { holdMs: 300 });
    const rss = rssMB(server.pid);
    const held = [];
    for (let i = 0; i < 2000; i++) {
      const socket = net.connect({ port: server.port, host: '127.0.0.1' }, () => socket.write(bytes));
      socket.on('error', () => {});
      socket.on('data', () => {});
      held.push(socket);
      if (i % 100 === 99) await sleep(20);
    }
    await sleep(12_000);
    console.log(
      `replay-flood: 2,000 replays of one captured connection held open, 12 s later: server fds ${fdCount(server.pid)}, target connections open ${target.sockets.size}, server RSS ${rss.toFixed(1)} -> ${rssMB(server.pid).toFixed(1)} MB`,
    );
    for (const socket of held) socket.destroy();
    target.close();
    await stopAll();
  },

  async 'half-closed'() {
    const method = 'aes-256-gcm';
    const target = await startTarget({ read: false });
    const server = await startServer(method);
    const idle = fdCount(server.pid);
    const clients = [];
    for (let i = 0; i < 200; i++) {
      const bytes = clientBytes(method, { host: '127.0.0.1', port: target.port });
      const socket = net.connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true }, () =>
        socket.end(bytes),
      );
      socket.on('error', () => {});
      clients.push(socket);
    }
    await sleep(2000);
    const during = fdCount(server.pid) - idle;
    for (const socket of clients) socket.resetAndDestroy();
    await sleep(2000);
    const after2 = fdCount(server.pid) - idle;
    await sleep(3000);
    console.log(
      `half-closed: 200 connections (with key) send a header then FIN to a silent target, then reset: server sockets held ${during} before the resets, ${after2} 2 s after, ${fdCount(server.pid) - idle} 5 s after`,
    );
    target.close();
    await stopAll();
  },

  async stalled() {
    const method = 'aes-256-gcm';
    const target = await startTarget({ read: false });
    const server = await startServer(method);
    const before = rssMB(server.pid);
    const stall = () =>
      stallFlow({
        port: server.port,
        presets: chain(method),
        password: KEY,
        target: { host: '127.0.0.1', port: target.port },
      });
    // The RSS after the first 50 as well: what a busy relay holds whatever
    // the number of flows (the garbage its collector lets pile up between
    // collections, compiled code) apart from what each further flow adds.
    const flows = [];
    let after50;
    for (let i = 0; i < 400; i += 50) {
      flows.push(...(await Promise.all(Array.from({ length: 50 }, stall))));
      after50 ??= rssMB(server.pid);
    }
    await sleep(1000);
    const sent = flows.reduce((sum, flow) => sum + flow.sent, 0);
    const after = rssMB(server.pid);
    console.log(
      `stalled: 400 flows (with key) into a target that never reads, each sending until stalled (${(sent / 400 / 2 ** 20).toFixed(1)} MB a flow): server RSS ${before.toFixed(1)} -> ${after.toFixed(1)} MB (+${(after - before).toFixed(1)}); ${after50.toFixed(1)} MB after the first 50, so ${(((after - after50) / 350) * 1024).toFixed(0)} KB a further flow`,
    );
    for (const { socket } of flows) socket.destroy();
    target.close();
    await stopAll();
  },

  async 'zero-chunks'() {
    const method = 'aes-256-gcm';
    const target = await startTarget();
    const server = await startServer(method);
    const spec = AEAD_METHODS[method];
    // A valid request, then 300,000 sealed chunks of length 0 under the same key.
    const salt = randomBytes(spec.saltLength);
    const key = spec.importKey(deriveSubkey(evpBytesToKey(KEY, spec.keyLength), salt));
    const nonce = Buffer.alloc(spec.nonceLength);
    const seal = (plain) => {
      const cipher = spec.seal(key, nonce);
      addLittleEndian(nonce, 1);
      return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    };
    const header = encodeAddressHeader({ host: '127.0.0.1', port: target.port });
    const parts = [salt, seal(Buffer.from([0, header.length])), seal(header)];
    for (let i = 0; i < 300_000; i++) {
      parts.push(seal(Buffer.from([0, 0])), seal(Buffer.alloc(0)));
    }
    const cpu = cpuSeconds(server.pid);
    const result = await probe(server.port, Buffer.concat(parts), { holdMs: 15_000 });
    await sleep(200);
    console.log(
      `zero-chunks: a request then 300,000 zero-length chunks: server ${result.how} after ${result.ms} ms, ${(cpuSeconds(server.pid) - cpu).toFixed(2)} s CPU`,
    );
    target.close();
    await stopAll();
  },

  async killed() {
    for (const signal of ['SIGKILL', 'SIGTERM']) await stopMidDownload(signal);
  },

  // A keyless probe repeats a captured connection's first 32 bytes, then
  // garbage; the genuine connection comes after it.
  async poison() {
    for (const [label, family] of Object.entries(FAMILIES)) {
      const target = await startTarget();
      const server = await startFamilyServer(family);
      const bytes = genuineBytes(family, { host: '127.0.0.1', port: target.port });
      await probe(server.port, Buffer.concat([bytes.subarray(0, 32), randomBytes(400)]), { holdMs: 300, end: true });
      await probe(server.port, bytes, { holdMs: 1000 });
      console.log(
        `poison ${label}: after a probe with its first 32 bytes, the genuine connection reached the target: ${target.connections === 1}`,
      );
      target.close();
      await stopAll();
    }
  },

  // A request, then 5,000 more bytes cut 5 bytes short, then FIN: what the
  // target sees, 7 runs.
  async cut() {
    for (const [label, family] of Object.entries(FAMILIES)) {
      const target = await startTarget();
      const ends = { FIN: 0, RST: 0 };
      for (let run = 0; run < 7; run++) {
        const seen = new Promise((resolve) => {
          target.onSocket = (socket) => {
            socket.on('end', () => resolve('FIN'));
            socket.on('error', () => resolve('RST'));
          };
        });
        const server = await startFamilyServer(family);
        const bytes = genuineBytes(family, { host: '127.0.0.1', port: target.port }, randomBytes(5000));
        await probe(server.port, bytes.subarray(0, bytes.length - 5), { holdMs: 3000, end: true });
        const how = await Promise.race([seen, sleep(3000).then(() => 'none')]);
        if (how in ends) ends[how] += 1;
        await stopAll();
      }
      console.log(
        `cut ${label}: a stream cut inside a record, 7 runs: the target saw a clean FIN ${ends.FIN} times, a reset ${ends.RST} times`,
      );
      target.close();
    }
  },

  // With key: a request, then sealed empty chunks.
  async 'empty-chunks'() {
    for (const [label, count] of [
      ['ss-aead aes-256-gcm', 300_000],
      ['ss-2022 aes-256-gcm', 300_000],
      ['aead-random aes-256-gcm', 100_000],
    ]) {
      const family = FAMILIES[label];
      const target = await startTarget();
      const server = await startFamilyServer(family);
      const flood = emptyChunkFlood({
        presets: family.presets,
        password: familyKey(family),
        target: { host: '127.0.0.1', port: target.port },
        count,
      });
      const cpu = cpuSeconds(server.pid);
      const result = await probe(server.port, flood, { holdMs: 15_000 });
      await sleep(200);
      console.log(
        `empty-chunks ${label}: a request then ${count.toLocaleString('en')} sealed empty chunks: server ${result.how} after ${result.ms} ms, ${(cpuSeconds(server.pid) - cpu).toFixed(2)} s CPU`,
      );
      target.close();
      await stopAll();
    }
  },

  // With key: 64 connections from fresh client ids, then a new client's.
  async lockout() {
    for (const label of ['ssr auth_aes128_sha1 aes-256-ctr', 'ssr auth_chain_a none']) {
      const family = FAMILIES[label];
      const target = await startTarget();
      const server = await startFamilyServer(family);
      const address = { host: '127.0.0.1', port: target.port };
      // Each genuineBytes is a client process of its own: a fresh client id.
      for (let i = 0; i < 64; i++) await probe(server.port, genuineBytes(family, address), { holdMs: 200 });
      const before = target.connections;
      await probe(server.port, genuineBytes(family, address), { holdMs: 1000 });
      console.log(
        `lockout ${label}: after 64 connections from fresh client ids (${before} reached the target), a new client reached the target: ${target.connections > before}`,
      );
      target.close();
      await stopAll();
    }
  },

  // ClientHellos for another server name and for the chain's own.
  async sni() {
    const family = FAMILIES['base-auth + aes-256-gcm + obfs-tls1.2-ticket'];
    const server = await startFamilyServer(family);
    for (const name of ['other.example', 'test.com']) {
      const result = await probe(server.port, clientHello(name), { holdMs: 14_000 });
      console.log(
        `sni obfs-tls1.2-ticket: a ClientHello for ${name}: ${result.back.length} bytes back, then ${result.how} after ${(result.ms / 1000).toFixed(2)} s`,
      );
    }
    await stopAll();
  },

  // A keyless flood holds every slot of --max-connections 100 (200 stalled
  // connections, each one byte); then 10 genuine connections at once: how
  // many reach the target within 3 s (the handshake timeout is 10 s).
  async 'cap-flood'() {
    const method = 'aes-256-gcm';
    const target = await startTarget();
    const port = await freePort();
    const argv = [
      '--openssl-legacy-provider',
      cli,
      'relay',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--key',
      KEY,
      '--presets',
      JSON.stringify(chain(method)),
      '--max-connections',
      '100',
    ];
    await startProcess(process.execPath, argv, { ready: /listening on/ });
    const flood = [];
    for (let i = 0; i < 200; i++) flood.push(probe(port, Buffer.from([1]), { holdMs: 12_000 }));
    await sleep(1000);
    const genuine = Array.from({ length: 10 }, () =>
      probe(port, clientBytes(method, { host: '127.0.0.1', port: target.port }), { holdMs: 3000 }),
    );
    await Promise.all(genuine);
    const reached = target.connections;
    const closed = await Promise.all(flood);
    const early = closed.filter(({ how, ms }) => how !== 'open' && ms < 9000).length;
    console.log(
      `cap-flood: 200 keyless stalls against --max-connections 100, then 10 genuine connections at once: ${reached} of 10 reached the target within 3 s; ${early} of the stalls closed before 9 s (${[...new Set(closed.map(({ how }) => how))].join('/')})`,
    );
    target.close();
    await stopAll();
  },

  // With the clock as it is: a captured auth_chain_a connection replayed
  // once its client id has been idle 10 minutes (Python forgets it then).
  async 'ssr-idle-replay'() {
    const family = FAMILIES['ssr auth_chain_a none'];
    const target = await startTarget();
    const server = await startFamilyServer(family);
    const bytes = genuineBytes(family, { host: '127.0.0.1', port: target.port });
    await probe(server.port, bytes, { holdMs: 300 });
    await sleep(618_000);
    const before = target.connections;
    await probe(server.port, bytes, { holdMs: 1000 });
    console.log(
      `ssr-idle-replay auth_chain_a none: original reached the target: ${before === 1}; the replay 618 s later reached it: ${target.connections > before}`,
    );
    target.close();
    await stopAll();
  },
};

// A download through our relay client (or ss-tunnel) whose relay server is
// stopped by `signal` half a second in, 5 times: how the application saw
// the end.
async function stopMidDownload(signal) {
  const method = 'aes-256-gcm';
  let ended = 0;
  let reset = 0;
  for (let run = 0; run < 5; run++) {
    const source = net.createServer((socket) => {
      socket.on('error', () => {});
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = () => {
        while (socket.write(chunk));
      };
      socket.on('drain', pump);
      pump();
    });
    await new Promise((resolve) => source.listen(0, '127.0.0.1', resolve));
    const server = await startServer(method);
    const clientPort = await startClient(method, server.port, source.address().port);
    const outcome = probe(clientPort, Buffer.from('GET'), { holdMs: 10_000 });
    await sleep(500);
    server.child.kill(signal);
    const { how } = await outcome;
    if (how === 'FIN') ended += 1;
    if (how === 'RST') reset += 1;
    source.close();
    await stopAll();
  }
  console.log(
    `killed: relay server stopped by ${signal} mid-download, 5 runs: the application saw a clean FIN ${ended} times, a reset ${reset} times`,
  );
}

try {
  for (const row of rows) await ROWS[row]();
} finally {
  await stopAll();
}
