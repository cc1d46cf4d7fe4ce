import net from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { prepareChain } from '../../../lib/chain/pipeline.js';
import { CATALOGUE } from '../../../lib/presets/index.js';

// Quiet this long and a socket counts as stalled.
const STALLED_AFTER_MS = 2000;
const CHUNK = Buffer.alloc(256 * 1024);

// One flow, with the key, to a relay server whose target never reads: it
// sends sealed bytes until its socket has not drained for 2 s, when the
// server's queue, its read-ahead and the kernel's buffers are all full.
// Resolves with { socket, sent } and leaves the socket open; the stalled
// memory test (relay-lifetime) and benchmark/programs/security-attacks.js both
// measure the server with many of these held.
export async function stallFlow({ port, presets, password, target }) {
  const socket = net.connect({ port, host: '127.0.0.1' });
  await once(socket, 'connect');
  socket.on('error', () => {});
  const encode = prepareChain(CATALOGUE, presets, { password })('client', { target }).encoder((data) =>
    socket.write(data),
  );
  let sent = 0;
  for (;;) {
    encode(CHUNK);
    sent += CHUNK.length;
    if (!socket.writableNeedDrain) continue;
    const drained = await Promise.race([
      once(socket, 'drain').then(() => true),
      sleep(STALLED_AFTER_MS).then(() => false),
    ]);
    if (!drained) return { socket, sent };
  }
}
