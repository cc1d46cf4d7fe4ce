import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { describeProcess, isRunning } from '../../benchmark/programs/support/proc-stats.js';

export { isRunning };

// Whether a pid still names a process (a zombie counts: nobody reaped it).
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if (error.code === 'ESRCH') return false;
    throw error;
  }
}

// A process that has exited and waits to be reaped (state Z) by its new
// parent: pdeathsig kills a child the CLI leaves when it exits, and the
// child, moved to init, stays a zombie until init gets to it, which under
// a loaded fresh-clone CI run took long enough to be seen (SIGHUP during a
// run: two zombies with parent 1). Only zombies get that grace.
const ZOMBIE_GRACE_MS = 2000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const isZombie = (pid) => isAlive(pid) && !isRunning(pid);

export function assertAllGone(pids, what = 'process') {
  let alive = [...pids].filter(isAlive);
  const deadline = Date.now() + ZOMBIE_GRACE_MS;
  while (alive.length > 0 && alive.every(isZombie) && Date.now() < deadline) {
    Atomics.wait(sleeper, 0, 0, 50);
    alive = alive.filter(isAlive);
  }
  assert.deepEqual(alive, [], `${what} left alive: ${alive.map(describeProcess).join(', ')}`);
}

// Occupies an iperf3 -s as another client would: connects straight to it,
// sends a cookie and test parameters, and waits until iperf3 -s expects that
// test's data streams. A test arriving through the relays then carries the
// wrong cookie and iperf3 refuses it with its own error. Retries until
// iperf3 -s listens; resolves with the socket, which the caller destroys.
const PARAM_EXCHANGE = 9;
const CREATE_STREAMS = 10;

export async function occupyIperf3Server(port, { timeoutMs = 10_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let socket;
    try {
      socket = await connect(port);
      socket.write(Buffer.concat([Buffer.from('cipherbench.test.occupies.iperf3.s..'.slice(0, 36)), Buffer.alloc(1)]));
      await stateByte(socket, PARAM_EXCHANGE);
      const params = Buffer.from(
        JSON.stringify({ tcp: true, omit: 0, time: 10, parallel: 1, len: 131072, client_version: '3.12' }),
      );
      const length = Buffer.alloc(4);
      length.writeUInt32BE(params.length);
      socket.write(Buffer.concat([length, params]));
      await stateByte(socket, CREATE_STREAMS);
      return socket;
    } catch (error) {
      // Not listening yet, or what answered was not iperf3 -s (a port check
      // binding for a moment): try again.
      socket?.destroy();
      if (Date.now() > deadline) throw error;
      await delay(5);
    }
  }
}

function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.off('error', reject);
      socket.on('error', () => {});
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function stateByte(socket, expected) {
  return new Promise((resolve, reject) => {
    const onClose = () => reject(new Error('closed before iperf3 -s answered'));
    socket.once('close', onClose);
    socket.once('data', (data) => {
      socket.off('close', onClose);
      if (data[0] === expected) resolve();
      else reject(new Error(`iperf3 -s sent state ${data[0]}, expected ${expected}`));
    });
  });
}
