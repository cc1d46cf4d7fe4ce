import dgram from 'node:dgram';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../../benchmark/programs/support/proc-stats.js';

// A port nothing listens on now, for the programs that must be told a number
// up front (ss-server, iperf3, v2ray and blinksocks configs, `cipherbench
// run --ports`). Our own relays and test servers bind port 0 and read the
// port back instead: that has no race at all.
//
// Here the port is released a moment before the program binds it, so it is
// drawn where nothing else is handed ports: below the kernel's ephemeral
// range, which every outgoing connection and every bind to port 0 takes
// from. Drawn from inside that range (the kernel's pick for port 0), a
// port was taken in that moment by one of the thousands of connections the
// storm files make: a fresh-clone CI run failed with ss-tunnel's "bind:
// Address already in use".
//
// Test files run four at a time, each in its own process, so a port is
// also reserved across them: a file in /tmp names each port handed out
// and the process it went to, and no other process takes it while that
// one lives. Without it two files drew the same number in the same
// moment, and a `run --udp` relay client found its port taken (a
// fresh-clone CI run, 2026-11-28). The port must be free for UDP as well
// as TCP: the runner's relays and sinks listen on both.
const given = new Set();
const LOWEST = 10_000;
// This process's reservations go with it.
process.once('exit', () => {
  for (const port of given) rmSync(join(RESERVED, String(port)), { force: true });
});
const RESERVED = join(tmpdir(), `cipherbench-test-ports-${process.getuid?.() ?? 'user'}`);

function ephemeralRange() {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return { low, high };
  } catch {
    // Not Linux: assume the IANA range.
  }
  return { low: 49152, high: 65535 };
}

// Resolves with the port the kernel gave when `port` (0: any) could be
// listened on, else null.
const tryListen = (port) =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(null) : reject(error),
    );
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address();
      server.close(() => resolve(bound));
    });
  });

// Whether a UDP socket could bind `port` now.
const udpFree = (port) =>
  new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    socket.once('error', (error) => {
      socket.close();
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });

// Whether this process now holds `port` in the shared reservations (a
// reservation of a process that is gone is taken over).
function reserve(port) {
  mkdirSync(RESERVED, { recursive: true });
  const file = join(RESERVED, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(file, 'utf8'));
    if (holder === process.pid) return true;
    if (holder > 0 && isRunning(holder)) return false;
    rmSync(file, { force: true });
  }
  return false;
}

export async function freePort() {
  const { low, high } = ephemeralRange();
  // Below the range when it leaves room there, else above it.
  const [from, to] = low - LOWEST >= 1000 ? [LOWEST, low - 1] : [high + 1, 65535];
  for (;;) {
    const wanted = to - from >= 1000 ? from + Math.floor(Math.random() * (to - from + 1)) : 0;
    const port = await tryListen(wanted);
    if (port === null || given.has(port) || !(await udpFree(port)) || !reserve(port)) continue;
    given.add(port);
    return port;
  }
}

// `count` distinct free ports.
export const freePorts = (count) => Promise.all(Array.from({ length: count }, freePort));

// { client, server, target } for the runner and `cipherbench run --ports`.
export async function freeRunPorts() {
  const [client, server, target] = await freePorts(3);
  return { client, server, target };
}

// Ports as the CLI takes them: ['--ports', 'C,S,T'].
export const portsFlag = ({ client, server, target }) => ['--ports', `${client},${server},${target}`];

export const freePortsFlag = async () => portsFlag(await freeRunPorts());
