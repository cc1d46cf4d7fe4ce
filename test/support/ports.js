import net from 'node:net';

// A port nothing listens on now, for the programs that must be told a number
// up front (ss-server, iperf3, v2ray and blinksocks configs, `cipherbench
// run --ports`). Our own relays and test servers bind port 0 and read the
// port back instead: that has no race at all.
//
// Here the race is as narrow as it can be made from outside the program: the
// kernel picks the port (so test files running side by side do not reach for
// the same fixed numbers), it is released a moment before the program binds
// it, and it is never handed out twice in this process. Another process could
// still take it in that moment (an outgoing connection's ephemeral port, or
// another file's freePort()); the kernel's random choice over the whole
// ephemeral range makes that rare, and a test that loses the race fails with
// EADDRINUSE, never passes wrongly.
const given = new Set();

export async function freePort() {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port: picked } = server.address();
        server.close(() => resolve(picked));
      });
    });
    if (!given.has(port)) {
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
