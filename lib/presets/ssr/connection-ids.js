import { randomBytes } from 'node:crypto';
import { protocolError } from '../../wire/protocol-error.js';

// ShadowsocksR's replay defence beyond the clock: every client picks a
// random 4-byte client id and counts its connections from a random start;
// the server keeps, per client id, a window of the connection ids it has
// seen (obfs_auth_*_data and client_queue in the Python server).

// The client side, one per relay client process (the Python client keeps
// it per server as server_info.data).
export function createClientIds() {
  let clientId = null;
  let connectionId = 0;
  return () => {
    if (!clientId || connectionId > 0xff000000) {
      clientId = randomBytes(4);
      connectionId = randomBytes(4).readUInt32LE(0) & 0xffffff;
    }
    connectionId += 1;
    return { clientId, connectionId };
  };
}

// The server side, one per relay server process. A connection id is
// refused when it is below the window (an old one replayed), more than
// 0x4000 above it, or seen before. A client id unheard of for `idleMs`
// starts a new window. At most `maxClients` client ids are kept; a new one
// evicts the least recently used, idle or not: refusing it instead would
// let one key holder's burst of fresh ids lock every other client out.
// A replay that a forgotten window would let through is refused by the
// handshake's record in the relay's salt filter (shared.js).
const WINDOW_BELOW = 64;
const WINDOW_ABOVE = 0x4000;
const WINDOW_SPAN = 0x1000;

export function createReplayWindows({ idleMs, maxClients = 64, now = Date.now }) {
  const clients = new Map();

  const fresh = (connectionId) => ({
    front: connectionId - WINDOW_BELOW,
    back: connectionId + 1,
    seen: new Set(),
    lastUpdate: now(),
  });
  const idle = (client) => now() - client.lastUpdate >= idleMs;

  function admit(client, connectionId) {
    if (connectionId < client.front)
      throw protocolError(`SSR connection id ${connectionId} is older than the window (a replay)`);
    if (connectionId > client.front + WINDOW_ABOVE)
      throw protocolError(`SSR connection id ${connectionId} is too far ahead of the window`);
    if (client.seen.has(connectionId))
      throw protocolError(`SSR connection id ${connectionId} was used before (a replay)`);
    client.lastUpdate = now();
    if (client.back <= connectionId) client.back = connectionId + 1;
    client.seen.add(connectionId);
    while (client.seen.has(client.front) || client.front + WINDOW_SPAN < client.back) {
      client.seen.delete(client.front);
      client.front += 1;
    }
  }

  // Throws protocolError when the (client id, connection id) pair is refused.
  return function insert(clientId, connectionId) {
    let client = clients.get(clientId);
    if (client) {
      clients.delete(clientId);
      if (idle(client)) client = fresh(connectionId);
    } else {
      if (clients.size >= maxClients) clients.delete(clients.keys().next().value);
      client = fresh(connectionId);
    }
    clients.set(clientId, client);
    admit(client, connectionId);
  };
}
