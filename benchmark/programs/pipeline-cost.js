// CPU a chain's pipelines cost in process, without sockets: a client and a
// server pipeline joined in memory carry a 40-byte request and a 79-byte
// response (wrk's and http-target's sizes), per kept-alive request (one
// pair, many requests) and per new connection (a new pair each time).
// What the relays spend beyond this is Node's sockets and streams, the
// kernel and the collector (docs/notes/performance.md, "Small records").
// With --against DIR, the same chains from another checkout's lib/ run in
// the same process, interleaved round by round: an A/B of the cipher code
// alone, quieter than the relays' because nothing else is scheduled.
//   node benchmark/programs/pipeline-cost.js [--rounds 5] [--against ../before] [CHAIN_NAME ...]
// CHAIN_NAME: plain, aes-128-gcm, aes-256-gcm, chacha20-ietf-poly1305 (default plain aes-128-gcm).
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { max, median, min } from '../../lib/statistics/summaries.js';

const CHAINS = {
  plain: [{ name: 'ss-base' }],
  ...Object.fromEntries(
    ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305'].map((method) => [
      method,
      [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }],
    ]),
  ),
};
const REQUEST = Buffer.from('GET / HTTP/1.1\r\nHost: 127.0.0.1:1081\r\n\r\n');
const RESPONSE = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
const KEPT_REQUESTS = 100_000;
const NEW_CONNECTIONS = 10_000;

const USAGE = 'usage: node benchmark/programs/pipeline-cost.js [--rounds N] [--against DIR] [CHAIN_NAME ...]';
const refuse = (message) => {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
};
let values;
let positionals;
try {
  ({ values, positionals } = parseArgs({
    options: { rounds: { type: 'string', default: '5' }, against: { type: 'string' } },
    allowPositionals: true,
  }));
} catch (error) {
  refuse(error.message);
}
const rounds = Number(values.rounds);
const names = positionals.length > 0 ? positionals : ['plain', 'aes-128-gcm'];
for (const name of names) {
  if (!CHAINS[name]) refuse(`unknown chain "${name}": one of ${Object.keys(CHAINS).join(', ')}`);
}
if (!Number.isInteger(rounds) || rounds < 1)
  refuse(`--rounds must be a whole number of at least 1, not "${values.rounds}"`);
if (values.against && !existsSync(path.join(values.against, 'lib', 'chain', 'pipeline.js')))
  refuse(`--against ${values.against}: not a cipherbench checkout (no lib/chain/pipeline.js there)`);

async function loadTree(root) {
  const lib = (file) => pathToFileURL(path.join(root, 'lib', file)).href;
  const { prepareChain } = await import(lib('chain/pipeline.js'));
  const { CATALOGUE } = await import(lib('presets/index.js'));
  return (chain) => prepareChain(CATALOGUE, chain, { password: 'pipeline-cost' });
}

// Encoders wired to the other side's decoders; returns the two writes.
function connect(create) {
  const client = create('client', { target: { host: '127.0.0.1', port: 1083 } });
  const server = create('server', { onTarget() {} });
  const clientDecode = client.decoder(() => {});
  const serverEncode = server.encoder((data) => clientDecode(data));
  const serverDecode = server.decoder(() => {});
  const clientEncode = client.encoder((data) => serverDecode(data));
  return { clientEncode, serverEncode };
}
const exchange = ({ clientEncode, serverEncode }) => {
  clientEncode(Buffer.from(REQUEST));
  serverEncode(Buffer.from(RESPONSE));
};
const cpuMicroseconds = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
function perKeptRequest(create) {
  const pair = connect(create);
  // The first requests warm the JIT and a run's batches up.
  for (let i = 0; i < 2000; i++) exchange(pair);
  const start = cpuMicroseconds();
  for (let i = 0; i < KEPT_REQUESTS; i++) exchange(pair);
  return (cpuMicroseconds() - start) / KEPT_REQUESTS;
}
function perNewConnection(create) {
  for (let i = 0; i < 1000; i++) exchange(connect(create));
  const start = cpuMicroseconds();
  for (let i = 0; i < NEW_CONNECTIONS; i++) exchange(connect(create));
  return (cpuMicroseconds() - start) / NEW_CONNECTIONS;
}

const here = path.resolve(import.meta.dirname, '../..');
const trees = [{ label: 'this tree', root: here }];
if (values.against) trees.push({ label: path.resolve(values.against), root: path.resolve(values.against) });
for (const tree of trees) tree.prepare = await loadTree(tree.root);

const results = [];
for (const tree of trees) {
  for (const name of names) results.push({ tree, name, create: tree.prepare(CHAINS[name]), kept: [], fresh: [] });
}
for (let round = 0; round < rounds; round++) {
  // Alternate the order so neither tree always runs on a warmer process.
  const order = round % 2 === 0 ? results : [...results].reverse();
  for (const row of order) {
    row.kept.push(perKeptRequest(row.create));
    row.fresh.push(perNewConnection(row.create));
  }
  process.stderr.write(`round ${round + 1}/${rounds}\n`);
}
const span = (values) => `${min(values).toFixed(1)}-${max(values).toFixed(1)}`;
console.log(`CPU µs in process, ${rounds} rounds (median, min-max): per kept-alive request, per new connection`);
for (const row of results) {
  console.log(
    `${row.tree.label.padEnd(20)} ${row.name.padEnd(24)} ${median(row.kept).toFixed(1).padStart(6)} (${span(row.kept)})  ${median(row.fresh).toFixed(1).padStart(6)} (${span(row.fresh)})`,
  );
}
