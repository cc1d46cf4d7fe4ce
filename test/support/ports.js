import { readFileSync } from 'node:fs';
import net from 'node:net';

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
// Address already in use". What is left is another file's freePort()
// drawing the same of some 20,000 numbers in the same moment, and a test
// that loses fails with EADDRINUSE, never passes wrongly. Never handed out
// twice in this process.
const given = new Set();
const LOWEST = 10_000;

function ephemeralRange() {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return { low, high };
  } catch {
    // Not Linux: assume the IANA range.
  }
  return { low: 49152, high: 65535 };
}

// Resolves true when `port` (0: any) could be listened on, with the port
// the kernel gave.
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

export async function freePort() {
  const { low, high } = ephemeralRange();
  // Below the range when it leaves room there, else above it.
  const [from, to] = low - LOWEST >= 1000 ? [LOWEST, low - 1] : [high + 1, 65535];
  for (;;) {
    const wanted = to - from >= 1000 ? from + Math.floor(Math.random() * (to - from + 1)) : 0;
    const port = await tryListen(wanted);
    if (port !== null && !given.has(port)) {
      given.add(port);
      return port;
    }
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
