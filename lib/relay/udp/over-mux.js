import { formatEndpoint } from '../endpoint.js';
import { MOST_DATAGRAM_BYTES } from '../mux-udp.js';
import { createForwardListener } from './forward-listener.js';

// UDP through a multiplexing chain (presets/mux.js): no UDP packet of the
// chain, but a Mux.Cool UDP session in one of the relay client's tunnels
// (mux-client.js `datagrams`) per association and target, as V2Ray's and
// Xray's clients carry UDP when their mux is on. A datagram over
// MOST_DATAGRAM_BYTES (Xray's bound; V2Ray 4.34's server takes 2,048) is
// dropped here rather than breaking the tunnel at the server.

// Targets one association may send to at once, each a session.
const MOST_TARGETS = 64;

// An association's sessions, one per target, each opened at its first
// datagram and forgotten when it ends. `deliver(payload, source)` for
// what comes back. send(target, datagram) says whether it went.
export function muxDatagramSessions({ pool, deliver }) {
  const byTarget = new Map();
  return {
    send(target, datagram) {
      if (datagram.length > MOST_DATAGRAM_BYTES) return false;
      const key = formatEndpoint(target);
      let session = byTarget.get(key);
      if (!session) {
        if (byTarget.size >= MOST_TARGETS) return false;
        session = pool.datagrams({ target, deliver, ended: () => byTarget.delete(key) });
        byTarget.set(key, session);
      }
      return session.send(datagram);
    },
    close() {
      for (const session of byTarget.values()) session.close();
      byTarget.clear();
    },
  };
}

// The UDP port forward (forward-client.js's role) through the mux: each local
// sender's datagrams go to `forward` in a session of its own.
export async function startUdpForwardOverMux({ listen, forward, pool, timeoutMs, maxAssociations, log }) {
  const local = createForwardListener({
    listen,
    timeoutMs,
    maxAssociations,
    log,
    closeAssociation: (sessions) => sessions.close(),
  });
  return local.start({
    open: (reply) => muxDatagramSessions({ pool, deliver: reply }),
    send(sessions, datagram) {
      if (!sessions.send(forward, datagram)) local.counts.refused += 1;
    },
  });
}
