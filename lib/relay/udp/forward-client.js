import { lookup } from 'node:dns/promises';
import { prepareUdpChain } from '../../chain/udp-form.js';
import { isProtocolError } from '../../wire/protocol-error.js';
import { DEFAULT_MAX_ASSOCIATIONS, DEFAULT_UDP_TIMEOUT_MS } from './associations.js';
import { createForwardListener } from './forward-listener.js';
import { startUdpForwardOverMux } from './over-mux.js';
import { closeUdp, createUdpSocket, enlargeBuffers, sendConnected } from './socket.js';

// Datagrams of one sender held while its upstream socket connects.
const PENDING_LIMIT = 64;

// The UDP relay client, a port forward (as ss-tunnel -U): each local sender
// gets an association, a socket to the relay server and a session of the
// chain; its datagrams go to the server addressed to `forward`, and the
// server's answers that open come back to the sender. Anything else
// arriving on that socket (from elsewhere, or not opening) is counted and
// dropped. The server's name is looked up once, at start. With a
// multiplexing chain, `muxPool` (the TCP relay client's) carries the
// datagrams instead (over-mux.js).
export async function startUdpRelayClient({
  listen,
  server,
  forward,
  password,
  catalogue,
  presets,
  timeoutMs = DEFAULT_UDP_TIMEOUT_MS,
  maxAssociations = DEFAULT_MAX_ASSOCIATIONS,
  log,
  muxPool = null,
}) {
  if (muxPool) return startUdpForwardOverMux({ listen, forward, pool: muxPool, timeoutMs, maxAssociations, log });
  const chain = prepareUdpChain(catalogue, presets, { password });
  const { address: serverAddress } = await lookup(server.host);
  const local = createForwardListener({
    listen,
    timeoutMs,
    maxAssociations,
    log,
    closeAssociation: ({ upstream }) => closeUdp(upstream),
  });
  const { counts, failed } = local;

  // Each upstream socket is connect()ed to the server: a send then takes no
  // address, so Node does no lookup (and no tick) per datagram, and the
  // kernel delivers only the server's datagrams to it. The datagrams that
  // come before the connect completes wait for it (a few at most: an
  // addressed send on a socket that has just connected fails), and past
  // PENDING_LIMIT are dropped as a full buffer would drop them.
  const open = (reply) => {
    const session = chain.client();
    const upstream = createUdpSocket(serverAddress, log);
    upstream.once('listening', () => enlargeBuffers(upstream));
    upstream.connect(server.port, serverAddress, () => {
      const waiting = association.pending;
      association.pending = null;
      for (const packet of waiting) sendConnected(upstream, packet, failed);
    });
    upstream.on('message', (packet, from) => {
      let opened;
      if (from.port !== server.port || from.address !== serverAddress) {
        counts.refused += 1;
        return;
      }
      try {
        opened = session.decode(packet);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        counts.refused += 1;
        log.debug(`udp: from the server: ${error.message}`);
        return;
      }
      reply(opened.payload);
    });
    const association = { session, upstream, pending: [] };
    return association;
  };

  return local.start({
    open,
    send(association, datagram) {
      const packet = association.session.encode(forward, datagram);
      if (!association.pending) sendConnected(association.upstream, packet, failed);
      else if (association.pending.length < PENDING_LIMIT) association.pending.push(packet);
    },
  });
}
