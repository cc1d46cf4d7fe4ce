import dns from 'node:dns';
import net from 'node:net';
import { isProtocolError, protocolError } from '../wire/protocol-error.js';
import { formatEndpoint } from './endpoint.js';
import { closeUdp, createUdpSocket, udpType } from './udp/socket.js';

// A Mux.Cool UDP session (network 2) on the relay server's side
// (mux-server.js): each frame's data is one datagram, sent from one UDP
// socket of the session's own to the session's target, or to the address
// an XUDP Keep frame names; what comes back is a Keep frame naming its
// source, as Xray's server writes it (V2Ray 4.34's client reads past it).
//
// Replies are taken only from the addresses the session sent to: Xray's
// freedom outbound takes them from anyone (full cone), which lets whoever
// learns the socket's port write into the tunnel. A datagram over
// MOST_DATAGRAM_BYTES closes the tunnel, as it breaks Xray's (its
// buf.Size; V2Ray 4.34's is 2,048); one to a refused address is dropped,
// the session going on. Xray keeps an XUDP session's socket under its
// global id for the next tunnel that names it; here a session's socket
// lives and dies with it.
export const MOST_DATAGRAM_BYTES = 8 * 1024;
// Addresses one session may send to, each remembered for its replies.
const MOST_PEERS = 64;
// Names one session may have looked up (each a lookup on libuv's threads,
// which a client naming a new one a datagram would keep busy), and the
// datagrams it holds, in all, while lookups are under way.
const MOST_NAMES = 16;
const MOST_WAITING = 16;

// `check(address)` throws protocolError for a target the server refuses;
// `reply(source, data)` writes a datagram toward the client, `full()` says the
// tunnel's queue is full (a reply is then dropped, as a full buffer would
// drop it); `ended(error)` is called once when the session ends from this
// side (idle for `idleMs`).
export function openUdpSession({ id, target, check, reply, full, ended, idleMs, log, label }) {
  const type = udpType(target.host);
  const socket = createUdpSocket(type === 'udp6' ? '::' : '0.0.0.0', log);
  // host|port of every address sent to, and names already looked up.
  const peers = new Set();
  const names = new Map();
  let waiting = 0;
  const dropped = { refused: 0, strangers: 0, full: 0, large: 0 };
  let held = [];
  let heldBytes = 0;
  let over = false;
  let idleTimer = null;

  // The idle timer is set again only when it fires, not at every
  // datagram: a timer a datagram would cost more than the datagram.
  let lastSeen = performance.now();
  const touch = () => {
    lastSeen = performance.now();
  };
  const watchIdle = (ms) => {
    idleTimer = setTimeout(() => {
      const quiet = performance.now() - lastSeen;
      if (quiet < idleMs) return watchIdle(idleMs - quiet);
      log.debug(`${label}: mux UDP session ${id}: idle for ${idleMs} ms`);
      close();
      ended(false);
    }, ms).unref();
  };

  socket.on('message', (data, from) => {
    if (over) return;
    if (!peers.has(`${from.address}|${from.port}`)) {
      dropped.strangers += 1;
      return;
    }
    if (data.length > MOST_DATAGRAM_BYTES) {
      dropped.large += 1;
      return;
    }
    if (full()) {
      dropped.full += 1;
      return;
    }
    touch();
    reply({ host: from.address, port: from.port }, data);
  });

  const sendTo = (address, host, datagram) => {
    if (over) return;
    if (peers.size >= MOST_PEERS && !peers.has(`${host}|${address.port}`)) {
      dropped.refused += 1;
      return;
    }
    peers.add(`${host}|${address.port}`);
    try {
      socket.send(datagram, address.port, host);
    } catch (error) {
      log.debug(`${label}: mux UDP session ${id}: ${error.message}`);
    }
  };

  // One datagram to `address`: an address of the socket's family as it is,
  // a name once looked up.
  const relay = (address, datagram) => {
    try {
      check(address);
      if (address.port === 0) throw protocolError('port 0');
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      dropped.refused += 1;
      log.debug(`${label}: mux UDP session ${id}: ${formatEndpoint(address)}: ${error.message}; dropped`);
      return;
    }
    const family = net.isIP(address.host);
    if (family !== 0) {
      if ((family === 6) !== (type === 'udp6')) dropped.refused += 1;
      else sendTo(address, address.host, datagram);
      return;
    }
    const name = names.get(address.host);
    if (name?.address) return sendTo(address, name.address, datagram);
    if (name?.failed || waiting >= MOST_WAITING || (!name && names.size >= MOST_NAMES)) {
      dropped.refused += 1;
      return;
    }
    waiting += 1;
    if (name) return name.waiting.push([address, datagram]);
    const entry = { address: null, failed: false, waiting: [[address, datagram]] };
    names.set(address.host, entry);
    dns.lookup(address.host, { family: type === 'udp6' ? 6 : 4 }, (error, found) => {
      waiting -= entry.waiting.length;
      if (error) {
        log.debug(`${label}: mux UDP session ${id}: ${address.host}: ${error.message}`);
        dropped.refused += entry.waiting.length;
        entry.failed = true;
      } else {
        entry.address = found;
        for (const [each, data] of entry.waiting) sendTo(each, found, data);
      }
      entry.waiting = [];
    });
  };

  const close = () => {
    if (over) return;
    over = true;
    clearTimeout(idleTimer);
    held = [];
    closeUdp(socket);
    const lost = Object.entries(dropped).filter(([, count]) => count > 0);
    if (lost.length > 0)
      log.debug(`${label}: mux UDP session ${id}: dropped ${lost.map(([why, count]) => `${count} ${why}`).join(', ')}`);
  };

  watchIdle(idleMs);
  return {
    // A piece of the current frame's datagram.
    data(piece) {
      heldBytes += piece.length;
      if (heldBytes > MOST_DATAGRAM_BYTES)
        throw protocolError(`mux: UDP session ${id}: a datagram over ${MOST_DATAGRAM_BYTES} bytes`);
      held.push(Buffer.from(piece));
    },
    // The frame is whole: its data is a datagram, to the address an XUDP
    // Keep frame names or else to the session's target.
    frameEnd(frame) {
      const datagram = held.length === 1 ? held[0] : Buffer.concat(held, heldBytes);
      held = [];
      heldBytes = 0;
      if (!frame.hasData || over) return;
      touch();
      relay(frame.target ?? target, datagram);
    },
    close,
  };
}
