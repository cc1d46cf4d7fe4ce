import { randomBytes } from 'node:crypto';
import { protocolError } from '../../wire/protocol-error.js';
import { MAX_ADDRESS_LENGTH } from '../udp/address-frame.js';
import { createPacketWindow } from './packet-window.js';
import {
  decodeRequestBody,
  decodeResponseBody,
  encodeRequestBody,
  encodeResponseBody,
  packetCipher,
  SESSION_ID_LENGTH,
} from './udp-packet.js';

// ss-2022's UDP form: sessions over udp-packet.js. The client draws one
// session id per association and numbers its packets; the server answers
// each client session from a session id of its own, naming the client's in
// every reply. Each side keeps a packet-id window per peer session
// (packet-window.js), so a replayed datagram is refused, from whatever
// address it comes: the server finds a live session by its id, not by the
// sender's address.
// Marked, so a relay can count replays apart from other refusals.
const replayError = (packetId) =>
  Object.assign(protocolError(`packet id ${packetId} seen before or too old: a replay`), { replay: true });

// A session keeps its peer's id for as long as it lives: a copy of its
// own, since a slice of Node's shared 8 KB pool would keep the whole pool.
function unpooledCopy(bytes) {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

export function ss2022UdpSessions(methodName, psk) {
  const cipher = packetCipher(methodName, psk);
  const overhead = cipher.overhead + 1 + 8 + SESSION_ID_LENGTH + 2 + MAX_ADDRESS_LENGTH;

  const client = () => {
    const sessionId = randomBytes(SESSION_ID_LENGTH);
    let nextId = 0;
    let server = null;
    return {
      encode: (target, payload) => cipher.seal(sessionId, nextId++, encodeRequestBody(target, payload)),
      decode(packet) {
        const { sessionId: serverId, packetId, body } = cipher.open(packet);
        const { clientSessionId, address, payload } = decodeResponseBody(body);
        if (!clientSessionId.equals(sessionId)) throw protocolError('a reply to another client session');
        // A server that restarted answers from a new session: a new window.
        if (!server?.id.equals(serverId)) server = { id: unpooledCopy(serverId), window: createPacketWindow() };
        if (!server.window.accept(packetId)) throw replayError(packetId);
        return { address, payload };
      },
    };
  };

  // One per relay server. decode(packet, current) finds the packet's
  // session: `current` (the sender's association's) when the ids match,
  // else a live one by its id (a client whose address changed, or a replay
  // from elsewhere), else a new one. hold/release count the associations
  // that use a session; a session with none is forgotten.
  const server = () => {
    const live = new Map();
    const newSession = (clientId, name) => {
      const serverId = randomBytes(SESSION_ID_LENGTH);
      let nextId = 0;
      return {
        name,
        holders: 0,
        window: createPacketWindow(),
        encode: (source, payload) => cipher.seal(serverId, nextId++, encodeResponseBody(clientId, source, payload)),
      };
    };
    return {
      decode(packet, current) {
        const { sessionId, packetId, body } = cipher.open(packet);
        const { address, payload } = decodeRequestBody(body);
        const name = sessionId.toString('hex');
        const session =
          current?.name === name ? current : (live.get(name) ?? newSession(unpooledCopy(sessionId), name));
        if (!session.window.accept(packetId)) throw replayError(packetId);
        return { session, address, payload };
      },
      hold(session) {
        if (session.holders++ === 0) live.set(session.name, session);
      },
      release(session) {
        if (--session.holders === 0) live.delete(session.name);
      },
      get sessions() {
        return live.size;
      },
    };
  };

  return { overhead, client, server };
}
