import dgram from 'node:dgram';
import net from 'node:net';
import { bindServer } from './listener.js';

// The least a Node relay must do (`cipherbench bare-relay`, the `bare-node`
// reference row): accept a connection, connect to the next hop, pipe both
// ways; with `udp`, receive a datagram and send it on from a socket kept
// for its sender, and the answers back. No protocol, no cipher, no
// limits beyond the association cap: it is a yardstick on loopback for
// what a relay pair costs on Node itself, never a server to expose.
// Two of them in a row are the pair (docs/performance.md, "Node's floor").

// A sender idle this long loses its upstream socket.
const UDP_IDLE_MS = 30_000;
// Senders with a socket of their own at once; the oldest goes first.
const UDP_ASSOCIATIONS = 1024;

export async function startBareRelay({ listen, forward, udp = false }) {
  const sockets = new Set();
  // Half-open both ways, as a TCP relay must be: one side's FIN is passed
  // on while the other side still sends.
  const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (inbound) => {
    const outbound = net.connect({ host: forward.host, port: forward.port, noDelay: true, allowHalfOpen: true });
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.pipe(outbound).pipe(inbound);
  });
  const address = await bindServer(server, listen);
  const datagrams = udp ? await startUdpForwarder({ listen: address, forward }) : null;
  return {
    address,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise((resolve) => server.close(resolve)), datagrams?.close()]);
    },
  };
}

// UDP on the same address as the TCP listener: an upstream socket per
// sender, connect()ed to the next hop so a send needs no lookup.
async function startUdpForwarder({ listen, forward }) {
  const type = net.isIPv6(listen.host) ? 'udp6' : 'udp4';
  const socket = dgram.createSocket(type);
  const associations = new Map();
  const associate = (sender) => {
    const key = `${sender.address}:${sender.port}`;
    let association = associations.get(key);
    if (association) {
      association.usedAt = Date.now();
      return association;
    }
    if (associations.size >= UDP_ASSOCIATIONS) {
      const [oldestKey, oldest] = associations.entries().next().value;
      oldest.upstream.close();
      associations.delete(oldestKey);
    }
    const upstream = dgram.createSocket(net.isIPv6(forward.host) ? 'udp6' : 'udp4');
    upstream.on('error', () => {});
    upstream.on('message', (answer) => socket.send(answer, sender.port, sender.address));
    upstream.connect(forward.port, forward.host);
    association = { upstream, usedAt: Date.now(), ready: new Promise((resolve) => upstream.once('connect', resolve)) };
    associations.set(key, association);
    return association;
  };
  socket.on('error', () => {});
  socket.on('message', (datagram, sender) => {
    const { upstream, ready } = associate(sender);
    ready.then(
      () => upstream.send(datagram),
      () => {},
    );
  });
  await new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(listen.port, listen.host, resolve);
  });
  const sweep = setInterval(() => {
    const stale = Date.now() - UDP_IDLE_MS;
    for (const [key, association] of associations) {
      if (association.usedAt < stale) {
        association.upstream.close();
        associations.delete(key);
      }
    }
  }, UDP_IDLE_MS / 2).unref();
  return {
    close: () =>
      new Promise((resolve) => {
        clearInterval(sweep);
        for (const association of associations.values()) association.upstream.close();
        socket.close(resolve);
      }),
  };
}
