import http2 from 'node:http2';
import { Duplex } from 'node:stream';
import { MAX_HEAD_BYTES, UPGRADE_PARAMS } from './http-upgrade.js';
import { isProtocolError, protocolError } from './protocol-error.js';
import { addressesOf, writeCorked } from './layered-socket.js';

// One HTTP/2 stream as the relay's socket: the grpc and h2 transports
// (V2Ray's, Xray's and sing-box's "gun" and "http") each carry one relay
// connection in one request's body and its response's, over one HTTP/2
// connection of its own, on node:http2 over the socket the layer below
// gives (TCP, or TLS from the tls preset).
//
// One stream per connection, the server says so twice: it allows one at a
// time (SETTINGS_MAX_CONCURRENT_STREAMS 1), and it sends GOAWAY as soon as
// it takes the first. The references' clients share one HTTP/2 connection
// among their tunnels; GOAWAY makes grpc-go (Xray) and Go's http2.Transport
// (sing-box, V2Ray) open a fresh connection for the next tunnel, not queue
// it behind this one.
//
// Bounds a peer cannot move: one stream; headers of at most
// MAX_HEAD_BYTES, as an HTTP/1.1 head's; a flow-control window of
// WINDOW_BYTES, which is all a peer can make us hold for a stream nobody
// reads; node's session memory cap; and at most MOST_CONTROL_FRAMES_IN_A_ROW
// SETTINGS or PING frames with no data between them (each costs an answer,
// and a peer that floods them without reading would queue answers without
// end; nghttp2's own limit, 1,000 queued answers, comes later). A request
// that never comes, or never names a target, is the relay's handshake
// timeout's, as for any transport.
export const MOST_CONTROL_FRAMES_IN_A_ROW = 64;
// Enough to keep a loopback stream flowing between two window updates.
const WINDOW_BYTES = 1 << 20;
// DATA frames a peer may send us: a relay's read in one, not four.
const FRAME_BYTES = 64 * 1024;
const SESSION_MEMORY_MB = 4;
// As much as a relay reads from a socket at once.
const BATCH_BYTES = 64 * 1024;
const LINGER_MS = 5000;
const { NGHTTP2_NO_ERROR, NGHTTP2_CANCEL } = http2.constants;

const SESSION_OPTIONS = {
  settings: {
    maxConcurrentStreams: 1,
    initialWindowSize: WINDOW_BYTES,
    maxHeaderListSize: MAX_HEAD_BYTES,
    maxFrameSize: FRAME_BYTES,
    enablePush: false,
  },
  maxSessionMemory: SESSION_MEMORY_MB,
  maxHeaderListPairs: 64,
  maxSessionInvalidFrames: 16,
  maxSessionRejectedStreams: 16,
};

const resetError = () => Object.assign(new Error('the HTTP/2 stream was reset'), { code: 'ECONNRESET' });

// The layer the relay reads and writes, over `inner`. `framing`:
//   encode(buffers) -> buffers: what the relay wrote, as the body's bytes;
//   decoder(deliver) -> { read(chunk), ended() }: the body's bytes back,
//     ended() throwing a protocol error when the body stopped inside a frame.
// attach(stream) hands it the HTTP/2 stream once there is one; until then
// writes and the end wait in the layer.
function tunnelLayer(inner, framing) {
  let stream = null;
  let session = null;
  let waiting = [];
  let pushedEnd = false;
  let controlInARow = 0;
  let idle = null;

  const activity = () => {
    controlInARow = 0;
    idle?.refresh();
  };
  const whenAttached = (run) => (stream ? run() : waiting.push(run));

  const resetInner = () => {
    if (inner.destroyed) return;
    if (typeof inner.resetAndDestroy === 'function') inner.resetAndDestroy();
    else inner.destroy();
  };

  const layer = new Duplex({
    allowHalfOpen: true,
    readableHighWaterMark: inner.readableHighWaterMark,
    writableHighWaterMark: inner.writableHighWaterMark,
    read() {
      stream?.resume();
    },
    writev(chunks, callback) {
      const buffers = chunks.map(({ chunk }) => chunk).filter((chunk) => chunk.length > 0);
      whenAttached(() => {
        // An empty write asks whether the connection was reset (bridge.js).
        if (buffers.length === 0) {
          return callback(stream.destroyed && stream.rstCode !== NGHTTP2_NO_ERROR ? resetError() : undefined);
        }
        if (stream.destroyed) return callback(resetError());
        activity();
        writeCorked(stream, framing.encode(buffers), callback);
      });
    },
    final(callback) {
      whenAttached(() => {
        if (!stream.destroyed) stream.end();
      });
      callback();
    },
    destroy(error, callback) {
      clearTimeout(idle);
      waiting = [];
      if (error && !error.answered) {
        resetInner();
        session?.destroy();
      } else {
        // A clean close, or a refusal already answered: what is queued
        // still goes out, then GOAWAY and the connection's end.
        if (stream && !stream.destroyed) stream.close(error ? NGHTTP2_CANCEL : NGHTTP2_NO_ERROR);
        session?.close();
        setTimeout(() => inner.destroy(), LINGER_MS).unref();
      }
      callback(error);
    },
  });

  const fail = (error) => {
    if (layer.destroyed) return;
    layer.destroy(error);
  };

  // What DATA frames carried, handed on as one buffer per read of the
  // socket, not one per frame: node and grpc-go send frames of 16 KiB, and
  // a relay writes each buffer it is handed with a system call of its own.
  let batch = [];
  let batchBytes = 0;
  const flush = () => {
    if (batchBytes === 0 || layer.destroyed) return;
    const bytes = batch.length === 1 ? batch[0] : Buffer.concat(batch, batchBytes);
    batch = [];
    batchBytes = 0;
    if (!layer.push(bytes)) stream.pause();
  };
  let flushing = null;
  const decoder = framing.decoder((bytes) => {
    batch.push(bytes);
    batchBytes += bytes.length;
    if (batchBytes >= BATCH_BYTES) flush();
    else
      flushing ??= setImmediate(() => {
        flushing = null;
        flush();
      });
  });

  const watchSession = (watched) => {
    session = watched;
    // The connection's window, as the stream's: node leaves it at
    // HTTP/2's 64 KiB, a window update every four reads.
    if (session.connecting) session.once('connect', () => session.setLocalWindowSize(WINDOW_BYTES));
    else session.setLocalWindowSize(WINDOW_BYTES);
    const control = (what) => () => {
      controlInARow += 1;
      if (controlInARow > MOST_CONTROL_FRAMES_IN_A_ROW) {
        fail(protocolError(`http2: over ${MOST_CONTROL_FRAMES_IN_A_ROW} ${what} frames in a row with no data`));
      }
    };
    session.on('ping', control('PING'));
    session.on('remoteSettings', control('SETTINGS'));
    session.on('error', (error) => fail(protocolError(`http2: ${error.message}`)));
    session.on('close', () => {
      if (!layer.destroyed && !stream) fail(protocolError('http2: the connection closed before its stream opened'));
    });
  };

  const attach = (attached) => {
    stream = attached;
    stream.on('data', (chunk) => {
      activity();
      try {
        decoder.read(chunk);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        fail(error);
      }
    });
    stream.on('end', () => {
      flush();
      try {
        decoder.ended();
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return fail(error);
      }
      pushedEnd = true;
      layer.push(null);
    });
    stream.on('error', (error) => fail(protocolError(`http2: ${error.message}`)));
    stream.on('close', () => {
      if (layer.destroyed) return;
      if (stream.rstCode !== NGHTTP2_NO_ERROR)
        return fail(protocolError(`http2: stream reset (code ${stream.rstCode})`));
      // What was delivered is still read: the layer closes once its reader
      // has had the end.
      if (pushedEnd && !layer.readableEnded) layer.once('end', () => layer.destroy());
      else if (pushedEnd) layer.destroy();
      else fail(protocolError('http2: the stream closed before its end'));
    });
    const run = waiting;
    waiting = [];
    for (const next of run) next();
  };

  // node:http2 closes the socket before it reports why (a session error):
  // the reason, when there is one, is heard first. A stream that ended
  // cleanly both ways closes the layer itself, once its end is read.
  const endedCleanly = () => pushedEnd && stream.destroyed && stream.rstCode === NGHTTP2_NO_ERROR;
  inner.on('close', () => setImmediate(() => endedCleanly() || fail(resetError())));

  Object.defineProperties(layer, {
    ...addressesOf(inner),
    // The relay's idle timeout: the socket under it cannot tell, since
    // node:http2 reads it natively, so the layer counts its own bytes.
    setTimeout: {
      value(ms, callback) {
        clearTimeout(idle);
        idle = ms > 0 ? setTimeout(() => layer.emit('timeout'), ms).unref() : null;
        if (callback) layer.once('timeout', callback);
        return layer;
      },
    },
    setNoDelay: { value: (noDelay) => (inner.setNoDelay?.(noDelay), layer) },
    setKeepAlive: { value: (enable, delay) => (inner.setKeepAlive?.(enable, delay), layer) },
    resetAndDestroy: {
      value() {
        layer.destroy(resetError());
        return layer;
      },
    },
  });
  return { layer, attach, watchSession, fail };
}

// A refusal the server answers (a 404) before it closes: logged as the
// protocol error it is, the connection ended cleanly after the answer.
export const refusal = (message) => Object.assign(protocolError(message), { answered: true });

// The server's half: `http2.createServer`'s sessions made from sockets we
// already hold ('connection' emitted by hand, as a secure server does after
// its handshake). `check(headers)` throws a refusal for a request it will
// not take; `answer` is the response's headers; `trailers`, when given,
// close the response (gRPC's status).
export function http2Server({ framing, check, answer, trailers, note }) {
  let server = null;
  const serve = (inner, { layer, attach, watchSession, fail }) => {
    server ??= http2.createServer(SESSION_OPTIONS);
    let session = null;
    const take = (made) => {
      session = made;
    };
    server.once('session', take);
    server.emit('connection', inner);
    server.off('session', take);
    if (!session) return fail(protocolError('http2: the connection could not start a session'));
    watchSession(session);
    let taken = false;
    session.on('stream', (stream, headers) => {
      if (taken || layer.destroyed) return stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      taken = true;
      try {
        check(headers);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        stream.respond({ ':status': 404 }, { endStream: true });
        return fail(error);
      }
      stream.respond(answer, { waitForTrailers: trailers !== undefined });
      if (trailers) stream.on('wantTrailers', () => stream.sendTrailers(trailers));
      // No second stream on this connection: the client opens another.
      session.close();
      note(headers[':path']);
      layer.emit('connect');
      attach(stream);
    });
  };
  return (inner) => {
    const tunnel = tunnelLayer(inner, framing());
    // node:http2 waits for a TLS socket's handshake while its
    // secureConnecting is set, which tls.Server clears when a server-side
    // socket is secure; a TLSSocket made without one (the tls preset's)
    // keeps it set, so it is cleared here, as tls.Server would.
    if (inner.secureConnecting) {
      inner.once('secure', () => {
        inner.secureConnecting = false;
        if (!tunnel.layer.destroyed) serve(inner, tunnel);
      });
    } else serve(inner, tunnel);
    return tunnel.layer;
  };
}

// The client's half: one HTTP/2 connection over `inner`, one request on it.
// `request` is its headers; `check(headers)` throws a protocol error for a
// response that is not the tunnel's, `checkTrailers(headers)` for trailers
// that say it failed.
export function http2Client(inner, { framing, authority, request, check, checkTrailers = () => {}, note }) {
  const { layer, attach, watchSession, fail } = tunnelLayer(inner, framing());
  const scheme = inner.encrypted ? 'https' : 'http';
  const session = http2.connect(`${scheme}://${authority}`, { ...SESSION_OPTIONS, createConnection: () => inner });
  watchSession(session);
  session.once('connect', () => layer.emit('connect'));
  // The authority as given: node would add the scheme's default port
  // (www.example.com:443), which V2Ray 4.34's server compares whole.
  const stream = session.request({ ...request, ':authority': authority }, { endStream: false });
  stream.once('response', (headers) => {
    try {
      check(headers);
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      return fail(error);
    }
    note();
  });
  stream.once('trailers', (headers) => {
    try {
      checkTrailers(headers);
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      fail(error);
    }
  });
  // The body may go out before the response comes: an HTTP/2 server reads
  // it as soon as the request's headers, and no round trip is lost.
  attach(stream);
  return layer;
}

// The host param of a transport on this tunnel (grpc, h2): checked as the
// upgrade transports' Host, sent and served as the :authority.
export const authorityParam = (defaultHost) => ({
  ...UPGRADE_PARAMS.host,
  description: `client: the :authority it sends (default ${defaultHost}); server: when given, the only one it serves`,
});

// HTTP/2 inside TLS is chosen by ALPN: V2Ray's client refuses a connection
// whose TLS did not agree on h2, and grpc-go (Xray's server) one that
// agreed on nothing. A chain [..., grpc, tls] must have tls offer it.
export const offersH2 = (name) => (chain, index) => {
  const next = chain[index + 1];
  if (next?.name !== 'tls' || [next.params?.alpn].flat().includes('h2')) return undefined;
  return `${name} inside tls needs tls to offer ALPN h2, as HTTP/2 over TLS requires: give tls params { "alpn": "h2" }`;
};
