import { resetSocket } from '../reset-socket.js';
import { peerLabel } from '../endpoint.js';

// How long an application may take to say where it wants to go (a SOCKS5
// greeting and request, an HTTP request head) before its connection is
// closed: the same bound the relay server gives a Shadowsocks header.
const INBOUND_HANDSHAKE_TIMEOUT_MS = 10_000;

// What every inbound's handshake shares: the bytes held until a message is
// whole, a timeout, and the one way to turn a connection away, which writes
// the protocol's refusal, closes, and logs one line. `step(held)` reads the
// bytes held so far and returns how many it used (0: it needs more); it is
// called again with the rest while it uses some. `finish()` stops reading
// (and pauses the socket) once the handshake is whole; the step that calls
// it passes on whatever it was given past the handshake.
export function readHandshake(local, { log, kind, step }) {
  const peer = peerLabel(local);
  let held = Buffer.alloc(0);
  let over = false;
  const timer = setTimeout(() => {
    log.debug(`${peer}: ${kind}: no request within ${INBOUND_HANDSHAKE_TIMEOUT_MS} ms; closed`);
    resetSocket(local);
  }, INBOUND_HANDSHAKE_TIMEOUT_MS);
  const stop = () => {
    over = true;
    clearTimeout(timer);
    local.off('data', onData);
    local.off('end', onEnd);
    local.off('error', onError);
  };
  const onData = (data) => {
    held = held.length === 0 ? data : Buffer.concat([held, data]);
    while (!over && held.length > 0) {
      const used = step(held);
      if (used === 0) return;
      held = held.subarray(used);
    }
  };
  const onEnd = () => {
    stop();
    log.debug(`${peer}: ${kind}: ended during the handshake`);
    local.destroy();
  };
  const onError = (error) => {
    stop();
    log.debug(`${peer}: ${kind}: ${error.message}`);
    local.destroy();
  };
  local.on('data', onData);
  local.once('end', onEnd);
  local.on('error', onError);
  local.once('close', () => clearTimeout(timer));
  return {
    peer,
    // The refusal goes out, then a FIN: the application reads why.
    refuse(reply, reason) {
      stop();
      log.warn(`${peer}: ${kind}: ${reason}; refused`);
      local.on('error', () => {});
      if (reply) local.end(reply);
      else local.end();
      // One that never reads the refusal is not held for long.
      setTimeout(() => local.destroy(), INBOUND_HANDSHAKE_TIMEOUT_MS).unref();
    },
    finish() {
      stop();
      local.pause();
    },
  };
}

// Connects to the relay server for an inbound that tells the application
// whether it worked (SOCKS5's reply, HTTP's 200 or 502): `connected()` once
// it did, `failed(error)` if it did not. A local connection that goes away
// meanwhile takes the half-made one with it.
export function dialFor(local, dial, { connected, failed }) {
  const upstream = dial();
  const onLocalClose = () => upstream.destroy();
  const onError = (error) => {
    local.off('close', onLocalClose);
    failed(error);
  };
  local.once('close', onLocalClose);
  upstream.once('error', onError);
  upstream.once('connect', () => {
    local.off('close', onLocalClose);
    upstream.off('error', onError);
    if (local.destroyed) return upstream.destroy();
    connected(upstream);
  });
}
