// What the relay's node flags (lib/relay/node-flags.js) change for a bulk
// transfer: our aes-256-gcm pair carries SIZE MB from FLOWS connections to a
// discarding target, started with the flags and without them, alternated;
// each line gives the pair's scavenges and mark-compacts (counted from
// --trace-gc) and its CPU seconds per GB (/proc). A cap that bound would
// show as more scavenges; the CPU figure moves with the machine's load.
//   node benchmark/programs/relay-gc.js [SIZE_MB=512] [ROUNDS=4] [FLOWS=1]
// Loopback only; everything it starts is stopped before the next round.
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { RELAY_NODE_FLAGS } from '../../lib/relay/node-flags.js';
import { cpuSeconds } from './support/proc-stats.js';
import { startOurRelay, stopAll } from './support/processes.js';

const [sizeMb = 512, rounds = 4, flows = 1] = process.argv.slice(2).map(Number);
const SIZE = sizeMb * 2 ** 20;
const PRESETS = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }]);
// 0 is V8's own default, given as a flag: a relay started with none gets
// the relay's flags added (lib/cli/relay-node-flags.js).
const VARIANTS = { 'node defaults': ['--max-semi-space-size=0'], [RELAY_NODE_FLAGS.join(' ')]: RELAY_NODE_FLAGS };
const startRelay = (flags, side, args = []) =>
  startOurRelay(side, { key: 'relay-gc', presets: PRESETS, nodeFlags: [...flags, '--trace-gc'], args });

async function carry(flags) {
  let received = 0;
  let allReceived;
  const done = new Promise((resolve) => (allReceived = resolve));
  const sink = net.createServer((socket) =>
    socket
      .on('error', () => {})
      .on('data', (data) => {
        received += data.length;
        if (received >= SIZE) allReceived();
      }),
  );
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const relays = [];
  const sockets = [];
  try {
    const server = await startRelay(flags, 'server');
    relays.push(server.child);
    const client = await startRelay(flags, 'client', [
      '--server',
      `127.0.0.1:${server.port}`,
      '--forward',
      `127.0.0.1:${sink.address().port}`,
    ]);
    relays.push(client.child);
    const cpuBefore = relays.reduce((sum, child) => sum + cpuSeconds(child.pid), 0);
    const started = Date.now();
    const chunk = Buffer.alloc(128 * 1024, 7);
    for (let i = 0; i < flows; i++) {
      const socket = net.connect(client.port, '127.0.0.1').on('error', () => {});
      let sent = 0;
      const pump = () => {
        while (sent < SIZE / flows) {
          sent += chunk.length;
          if (!socket.write(chunk)) return socket.once('drain', pump);
        }
      };
      socket.on('connect', pump);
      sockets.push(socket);
    }
    await done;
    const seconds = (Date.now() - started) / 1000;
    const cpu = relays.reduce((sum, child) => sum + cpuSeconds(child.pid), 0) - cpuBefore;
    const count = (kind) => relays.reduce((sum, child) => sum + child.output.split(kind).length - 1, 0);
    return { seconds, cpuPerGb: cpu / (SIZE / 1e9), scavenges: count('Scavenge'), markCompacts: count('Mark-Compact') };
  } finally {
    for (const socket of sockets) socket.destroy();
    await stopAll();
    sink.close();
    await sleep(300);
  }
}

for (let round = 0; round < rounds; round++) {
  const names = Object.keys(VARIANTS);
  for (const name of round % 2 ? names.reverse() : names) {
    const { seconds, cpuPerGb, scavenges, markCompacts } = await carry(VARIANTS[name]);
    console.log(
      `${name.padEnd(24)} ${sizeMb} MB over ${flows} flow(s) in ${seconds.toFixed(1)} s: pair CPU ${cpuPerGb.toFixed(2)} s/GB, ${scavenges} scavenges, ${markCompacts} mark-compacts`,
    );
  }
}
