import { isProtocolError, protocolError } from '../wire/protocol-error.js';
import { formatEndpoint } from './endpoint.js';
import { openUdpSession } from './mux-udp.js';
import { LINGER_MS, resetSocket } from './reset-socket.js';

// The relay server's side of a multiplexing chain (presets/mux.js): a
// connection whose protocol named the multiplexing target is a tunnel, and
// each session in it is carried to its own target. Its client is trusted
// no more than any other: every count and length it controls is bounded,
// and a frame no client of the protocol sends closes the tunnel (and every
// target of it) with one line at debug level.
//
// End closes a session both ways (Mux.Cool has no half-close), as V2Ray's
// and Xray's servers close it: the target gets its FIN after what was
// written to it, and nothing more of it is carried back. A target's end
// or failure is an End (with Error when it failed) toward the client.
//
// A UDP session (mux-udp.js) is carried the same way, from a UDP socket of
// its own: End from either side closes the socket; so does its idle time.

// Frames in a row that carry nothing (KeepAlive, Keep without data): a
// client sends one now and then, never a stream of them.
const MOST_EMPTY_FRAMES_IN_A_ROW = 64;
// Sessions one tunnel may open in its life: V2Ray's and Xray's clients
// open 128, then a new tunnel; ids are never reused. A codec whose clients
// pick ids at random (`randomIds`: blinksocks', which bounds no tunnel's
// sessions) has no such bound: its server remembers this many ids, for
// frames that cross an End, and refuses only an id opened while open.
const MOST_SESSIONS_PER_TUNNEL = 1024;
// A tunnel with no session open is closed after this long (or the
// server's idle timeout, when shorter): Xray's server checks every 60 s.
const MOST_IDLE_TUNNEL_MS = 60_000;
const FRAME_DATA_BYTES = 8 * 1024;
// A UDP session's idle time when the server has no idle timeout: Xray's
// connection idle policy, and our UDP relay's --udp-timeout default.
const DEFAULT_UDP_IDLE_MS = 300_000;

// Serves `tunnel` (the client connection, its handshake done) from here
// on. `decode` and `encode` are its pipeline's directions; the caller
// passes what decode gives to read(), the bytes of the handshake's read
// first. `connectTarget(address)` gives a socket to the target, or throws
// protocolError when it is refused; `checkTarget(address)` only throws.
export function serveMux({
  tunnel,
  mux,
  pipeline,
  decode,
  encode,
  connectTarget,
  checkTarget,
  queues,
  counts,
  idleTimeoutMs,
  log,
  label,
}) {
  const { status, randomIds = false } = mux;
  // Sessions open at once: the chain's concurrency, or more where the
  // codec's clients do not bound theirs by it (`mostOpen`).
  const mostOpen = mux.mostOpen ?? mux.concurrency;
  const open = new Map();
  const seen = new Set();
  let emptyInARow = 0;
  let over = false;
  let idleTimer = null;
  let blocked = 0;
  // Targets not read while the tunnel's queue toward the client is full.
  const paused = new Set();
  const idleMs = Math.min(MOST_IDLE_TUNNEL_MS, idleTimeoutMs > 0 ? idleTimeoutMs : MOST_IDLE_TUNNEL_MS);

  const send = (frame) => {
    if (over) return;
    const buffers = mux.encodeFrame(frame);
    encode(buffers.length === 1 ? buffers[0] : Buffer.concat(buffers));
  };
  const block = () => {
    blocked += 1;
    tunnel.pause();
  };
  const unblock = () => {
    blocked -= 1;
    if (blocked === 0 && !over) tunnel.resume();
  };
  const checkIdle = () => {
    clearTimeout(idleTimer);
    if (open.size === 0 && !over) idleTimer = setTimeout(closeIdle, idleMs).unref();
  };
  const closeIdle = () => {
    log.debug(`${label}: mux tunnel with no session for ${idleMs} ms: closed`);
    finish();
  };

  // Ends the session `id` from the server's side: End toward the client.
  const endSession = (session, error) => {
    if (session.over) return;
    session.over = true;
    open.delete(session.id);
    send({ id: session.id, status: status.end, error });
    checkIdle();
  };

  const startSession = ({ id, network, target: address }) => {
    if (randomIds) {
      seen.delete(id);
      if (seen.size >= MOST_SESSIONS_PER_TUNNEL) seen.delete(seen.values().next().value);
    }
    seen.add(id);
    counts.muxSessions += 1;
    if (network === mux.udpNetwork) return startUdpSession(id, address);
    if (network !== mux.network) {
      log.debug(`${label}: mux session ${id}: network ${network} is not carried, only TCP and UDP`);
      return send({ id, status: status.end, error: true });
    }
    let target;
    try {
      target = connectTarget(address);
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      log.debug(`${label}: mux session ${id}: ${error.message}`);
      return send({ id, status: status.end, error: true });
    }
    const session = { id, target, over: false, blocking: false };
    open.set(id, session);
    checkIdle();
    target.on('data', (data) => {
      if (session.over || over) return;
      for (let at = 0; at < data.length; at += FRAME_DATA_BYTES) {
        send({ id, status: status.keep, data: data.subarray(at, at + FRAME_DATA_BYTES) });
      }
      if (queues.full(tunnel)) {
        target.pause();
        paused.add(target);
      }
    });
    target.on('end', () => {
      endSession(session, false);
      target.end();
    });
    target.on('error', (error) => {
      log.debug(`${label}: mux session ${id}: ${error.message}`);
      endSession(session, true);
      target.destroy();
    });
    target.on('close', () => {
      paused.delete(target);
      endSession(session, false);
    });
  };

  const startUdpSession = (id, address) => {
    try {
      checkTarget(address);
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      log.debug(`${label}: mux UDP session ${id}: ${error.message}`);
      return send({ id, status: status.end, error: true });
    }
    log.debug(`${label}: mux UDP session ${id} to ${formatEndpoint(address)}`);
    const session = { id, over: false };
    session.udp = openUdpSession({
      id,
      target: address,
      check: checkTarget,
      reply: (source, data) => send({ id, status: status.keep, address: source, data }),
      full: () => queues.full(tunnel),
      ended: (error) => endSession(session, error),
      idleMs: idleTimeoutMs > 0 ? idleTimeoutMs : DEFAULT_UDP_IDLE_MS,
      log,
      label,
    });
    open.set(id, session);
    checkIdle();
  };

  // The client's End: the target gets its FIN (a reset, for End with
  // Error) and is not read any more; End goes back, as Xray's server
  // answers.
  const clientEnded = (session, error) => {
    if (session.udp) session.udp.close();
    else if (error) resetSocket(session.target);
    else {
      session.target.end();
      setTimeout(() => session.target.destroy(), LINGER_MS).unref();
    }
    endSession(session, error);
  };

  const counted = (frame) => {
    emptyInARow += 1;
    if (emptyInARow > MOST_EMPTY_FRAMES_IN_A_ROW)
      throw protocolError(
        `mux: over ${MOST_EMPTY_FRAMES_IN_A_ROW} frames in a row carried nothing (status ${frame.status})`,
      );
  };

  // Whether the frame being read carried a byte: a Keep frame announcing
  // data of length 0 carries nothing, as a Keep frame without data.
  let carried = false;
  const reader = mux.createFrameReader({
    onFrame(frame) {
      const { id } = frame;
      carried = false;
      if (frame.status === status.keepAlive) return counted(frame);
      if (frame.status === status.new) {
        if (open.has(id) || (!randomIds && seen.has(id)))
          throw protocolError(`mux: session id ${id} opened a second time`);
        if (open.size >= mostOpen) throw protocolError(`mux: a session over ${mostOpen} open at once (concurrency)`);
        if (!randomIds && seen.size >= MOST_SESSIONS_PER_TUNNEL)
          throw protocolError(`mux: over ${MOST_SESSIONS_PER_TUNNEL} sessions on one tunnel`);
        return startSession(frame);
      }
      if (!open.has(id) && !seen.has(id))
        throw protocolError(`mux: a frame (status ${frame.status}) for session ${id}, never opened`);
      if (frame.status === status.keep && !frame.hasData) return counted(frame);
      if (frame.status === status.end) {
        const session = open.get(id);
        if (session) clientEnded(session, frame.error);
      }
    },
    onData(frame, piece) {
      if (frame.status !== status.new && frame.status !== status.keep) return;
      carried = true;
      emptyInARow = 0;
      const session = open.get(frame.id);
      if (!session) return;
      if (session.udp) return session.udp.data(piece);
      const { target } = session;
      target.write(piece);
      if (!session.blocking && queues.full(target)) {
        // The tunnel is not read until this target drains or goes.
        session.blocking = true;
        block();
        const done = () => {
          if (!session.blocking) return;
          session.blocking = false;
          target.off('drain', done);
          target.off('close', done);
          unblock();
        };
        target.once('drain', done);
        target.once('close', done);
      }
    },
    onFrameEnd(frame) {
      if (frame.status === status.keep && frame.hasData && !carried) counted(frame);
      open.get(frame.id)?.udp?.frameEnd(frame);
    },
  });

  // The tunnel broke or broke the protocol: every target is reset.
  const fail = (error) => {
    if (over) return;
    over = true;
    clearTimeout(idleTimer);
    log.debug(`${label}: mux tunnel: ${error.message ?? error}`);
    for (const session of open.values()) {
      if (session.udp) session.udp.close();
      else resetSocket(session.target);
    }
    open.clear();
    resetSocket(tunnel);
  };
  // The tunnel ends cleanly: every target gets its FIN, the client ours.
  const finish = () => {
    if (over) return;
    over = true;
    clearTimeout(idleTimer);
    for (const session of open.values()) {
      if (session.udp) session.udp.close();
      else session.target.end();
    }
    open.clear();
    try {
      pipeline.encodeEnded();
    } finally {
      tunnel.end();
    }
  };

  const guard = (work) => {
    try {
      work();
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      fail(error);
    }
  };
  tunnel.on('data', (data) => guard(() => decode(data)));
  tunnel.on('drain', () => {
    for (const target of paused) target.resume();
    paused.clear();
  });
  tunnel.on('end', () =>
    guard(() => {
      pipeline.decodeEnded();
      if (!reader.atBoundary()) throw protocolError('mux: the tunnel ended inside a frame');
      finish();
    }),
  );
  tunnel.on('error', fail);
  tunnel.on('close', () => fail(new Error('closed')));
  if (idleTimeoutMs > 0) tunnel.setTimeout(idleTimeoutMs, () => fail(new Error(`idle for ${idleTimeoutMs} ms`)));
  checkIdle();

  return {
    // The tunnel's decoded bytes.
    read: (data) => reader.read(data),
    fail,
  };
}
