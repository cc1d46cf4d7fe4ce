import { Duplex } from 'node:stream';
import { isProtocolError, protocolError } from '../wire/protocol-error.js';

// The relay client's side of a multiplexing chain (presets/mux.js): each
// client connection is a session, a Duplex the inbounds and the bridge use
// as they would the socket to the relay server, carried in frames over a
// tunnel, one connection of the chain to the multiplexing target. A session
// goes into the oldest tunnel with fewer than `concurrency` sessions open;
// a new tunnel is dialled only when every one is full, as V2Ray's and
// Xray's clients do.
//
// Mux.Cool has no half-close: End closes a session both ways. The client
// sends End when its application ends its side, and its application gets
// its end with it; what the server sends after that is dropped, as V2Ray's
// and Xray's clients drop it.

// A tunnel with no session open is closed after this long. Xray's client
// checks every 16 s and closes one that had none for a whole period (16 to
// 32 s); one period lets a browser's next burst of connections reuse it
// without holding connections nobody needs for long.
const IDLE_TUNNEL_MS = 16_000;
// Frames of at most this much data, as V2Ray's and Xray's writers make.
const FRAME_DATA_BYTES = 8 * 1024;
// How much a tunnel may queue before its sessions' writes wait for it.
const TUNNEL_MARK_BYTES = 1 << 20;

export function createMuxPool({ mux, dial, createPipeline, log }) {
  const tunnels = new Set();
  const counts = { tunnels: 0, sessions: 0 };
  const pick = () => {
    for (const tunnel of tunnels) if (tunnel.hasRoom()) return tunnel;
    const tunnel = openTunnel({ mux, dial, createPipeline, log, forget: () => tunnels.delete(tunnel) });
    tunnels.add(tunnel);
    counts.tunnels += 1;
    return tunnel;
  };
  return {
    // A session for one client connection: what dial() gives without mux.
    session() {
      counts.sessions += 1;
      return pick().session();
    },
    // A UDP session to `target` (Mux.Cool network 2) for one association
    // of the UDP relay (udp/over-mux.js): send(datagram) says whether it
    // went (false: the session is over or its tunnel full, and it is
    // dropped, as a full socket buffer drops it); close() ends it.
    // deliver(datagram, source) for each one back, its source the address
    // an XUDP Keep frame names or else `target`; ended() once when it ends
    // otherwise (the server's End, the tunnel broken).
    datagrams: (options) => pick().datagrams(options),
    // Tunnels opened and sessions carried so far.
    stats: () => ({ ...counts }),
    summary: () => `${counts.sessions} client connections over ${counts.tunnels} mux tunnel connections`,
  };
}

function openTunnel({ mux, dial, createPipeline, log, forget }) {
  const { status } = mux;
  const socket = dial();
  const pipeline = createPipeline('client', { target: mux.target });
  const encode = pipeline.encoder((data) => socket.write(data));
  const sessions = new Map();
  let nextId = 1;
  let connected = false;
  let closed = false;
  let idleTimer = null;
  let broken = false;
  // Sessions whose reader wants no more for now: the tunnel is not read
  // until every one of them asks again.
  const stalled = new Set();

  const send = (frame) => {
    if (broken) return;
    const buffers = mux.encodeFrame(frame);
    encode(buffers.length === 1 ? buffers[0] : Buffer.concat(buffers));
  };

  const release = (id) => {
    if (!sessions.delete(id)) return;
    if (sessions.size === 0) whenEmpty();
  };
  const whenEmpty = () => {
    if (closed) return;
    if (nextId > mux.sessionsPerTunnel) return close();
    clearTimeout(idleTimer);
    idleTimer = setTimeout(close, IDLE_TUNNEL_MS).unref();
  };
  // Closes the tunnel cleanly (its protocol's end record, then a FIN).
  const close = () => {
    if (closed) return;
    closed = true;
    forget();
    clearTimeout(idleTimer);
    try {
      pipeline.encodeEnded();
    } finally {
      socket.end();
    }
  };
  // The tunnel broke: every session on it breaks with it.
  const fail = (error) => {
    broken = true;
    if (!closed) {
      closed = true;
      forget();
      clearTimeout(idleTimer);
      log.debug(`mux tunnel: ${error.message}`);
    }
    for (const session of sessions.values()) session.destroy(error);
    sessions.clear();
    socket.destroy();
  };

  const reader = mux.createFrameReader({
    onFrame(frame) {
      if (frame.status === status.end) {
        const session = sessions.get(frame.id);
        if (!session) return;
        release(frame.id);
        session.remoteEnded(frame.error);
      }
    },
    onData(frame, piece) {
      if (frame.status !== status.keep && frame.status !== status.new) return;
      const session = sessions.get(frame.id);
      if (session && !session.deliver(Buffer.from(piece))) {
        stalled.add(session);
        socket.pause();
      }
    },
    onFrameEnd(frame) {
      sessions.get(frame.id)?.frameEnd?.(frame);
    },
  });
  const decode = pipeline.decoder((data) => reader.read(data));

  socket.once('connect', () => {
    connected = true;
    for (const session of sessions.values()) if (!session.udp) session.emit('connect');
  });
  socket.on('data', (data) => {
    try {
      decode(data);
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      fail(error);
    }
  });
  socket.on('end', () => {
    try {
      pipeline.decodeEnded();
      if (!reader.atBoundary()) throw protocolError('mux: the tunnel ended inside a frame');
      if (sessions.size > 0) throw protocolError(`mux: the tunnel ended with ${sessions.size} sessions open`);
      close();
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      fail(error);
    }
  });
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the tunnel closed')));
  socket.on('drain', () => {
    for (const session of sessions.values()) session.tunnelDrained();
  });

  const resume = (session) => {
    stalled.delete(session);
    if (stalled.size === 0 && !closed) socket.resume();
  };

  return {
    hasRoom: () => !closed && sessions.size < mux.concurrency && nextId <= mux.sessionsPerTunnel,
    session() {
      clearTimeout(idleTimer);
      const id = nextId;
      nextId += 1;
      const session = createSession({ id, send, socket, status, release, resume });
      sessions.set(id, session);
      // A session that goes while its reader stalled the tunnel stalls it no more.
      session.once('close', () => resume(session));
      if (connected) process.nextTick(() => session.emit('connect'));
      return session;
    },
    datagrams({ target, deliver, ended }) {
      clearTimeout(idleTimer);
      const id = nextId;
      nextId += 1;
      let over = false;
      let held = [];
      const finish = () => {
        if (over) return false;
        over = true;
        held = [];
        release(id);
        return true;
      };
      // What the reader hands a session (the TCP one's shape): a frame's
      // data in pieces, one datagram once the frame is whole.
      sessions.set(id, {
        udp: true,
        deliver(piece) {
          if (!over) held.push(piece);
          return true;
        },
        frameEnd(frame) {
          const datagram = held.length === 1 ? held[0] : Buffer.concat(held);
          held = [];
          if (!over && frame.hasData) deliver(datagram, frame.target ?? target);
        },
        remoteEnded: () => finish() && ended(),
        destroy: () => finish() && ended(),
        tunnelDrained() {},
      });
      send({ id, status: status.new, network: mux.udpNetwork, target });
      return {
        send(datagram) {
          if (over || socket.writableLength >= TUNNEL_MARK_BYTES) return false;
          send({ id, status: status.keep, data: datagram });
          return true;
        },
        close() {
          if (finish()) send({ id, status: status.end });
        },
      };
    },
  };
}

// One client connection's session: written to by the bridge, read by it.
// `open(target, reply)` is the relay client's open() for it, the stream's
// two directions (bridge.js): the New frame goes out at once, so protocols
// where the server speaks first work.
function createSession({ id, send, socket, status, release, resume }) {
  let opened = false;
  // End went out or came in: the session carries nothing more.
  let over = false;
  let waiting = null;
  const session = new Duplex({
    write(chunk, encoding, callback) {
      if (over || chunk.length === 0) return callback();
      for (let at = 0; at < chunk.length; at += FRAME_DATA_BYTES) {
        send({ id, status: status.keep, data: chunk.subarray(at, at + FRAME_DATA_BYTES) });
      }
      if (socket.writableLength < TUNNEL_MARK_BYTES) return callback();
      waiting = callback;
    },
    final(callback) {
      endHere(false);
      callback();
    },
    read() {
      resume(session);
    },
    destroy(error, callback) {
      endHere(Boolean(error));
      callback(error);
    },
  });
  const endHere = (error) => {
    if (over) return;
    over = true;
    if (opened) send({ id, status: status.end, error });
    release(id);
    session.push(null);
  };
  return Object.assign(session, {
    connecting: false,
    open(target, reply) {
      if (!opened) {
        opened = true;
        send({ id, status: status.new, target });
      }
      return {
        encode: (data) => session.write(data),
        decode: reply,
        encodeEnded: () => {},
        decodeEnded: () => {},
        hold: { held: () => 0, whenReleased: (callback) => callback() },
      };
    },
    deliver: (data) => (over ? true : session.push(data)),
    // The server's End: a clean one ends the application's side after
    // what came before it; one with Error resets it.
    remoteEnded(error) {
      if (over) return;
      over = true;
      if (error) session.destroy(protocolError(`mux: session ${id} ended by the server with an error`));
      else session.push(null);
    },
    tunnelDrained() {
      const callback = waiting;
      waiting = null;
      callback?.();
    },
    resetAndDestroy: () => session.destroy(new Error('reset')),
  });
}
