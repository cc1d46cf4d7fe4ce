import { timingSafeEqual } from 'node:crypto';
import { isProtocolError } from '../../wire/protocol-error.js';
import { resetSocket } from '../bridge.js';
import { dialFor, readHandshake } from './handshake.js';
import { bodyLength, headerValues, isHttpRefusal, parseAuthority, parseRequestHead, refusalResponse } from './http-head.js';

// An HTTP proxy, as a browser's proxy setting uses one: CONNECT host:port
// opens a tunnel (200, then bytes both ways, whatever they are), and a
// request with an absolute URI (GET http://host/path) is passed on to that
// host in origin form, on keep-alive connections both sides. With a
// username and password, every request must carry them (Proxy-Authorization:
// Basic, RFC 9110 section 11.7.1), else 407.
//
// Plain requests on one connection may name different hosts: each goes to
// its host over a stream of its own, opened when the host changes, and the
// last one is closed then. That is right for every client that waits for a
// response before its next request (curl, browsers); a client pipelining
// requests to two hosts on one connection could see the first answer cut.
const IDLE_TIMEOUT_MS = 300_000;
const DROPPED_HEADERS = new Set(['proxy-connection', 'proxy-authorization']);
const CONNECTED = Buffer.from('HTTP/1.1 200 Connection established\r\n\r\n');

export function httpInbound({ auth, dial, open, splice, queues, log }) {
  const credentials = auth && `Basic ${Buffer.concat([auth.user, Buffer.from(':'), auth.password]).toString('base64')}`;
  const authorized = (head) => {
    if (!credentials) return true;
    const given = headerValues(head, 'proxy-authorization');
    return given.length === 1 && given[0].length === credentials.length && timingSafeEqual(Buffer.from(given[0]), Buffer.from(credentials));
  };
  const check = (head) => {
    if (authorized(head)) return null;
    return { status: 407, reason: 'missing or wrong Proxy-Authorization', headers: ['Proxy-Authenticate: Basic realm="cipherbench"'] };
  };

  return (local) => {
    const handshake = readHandshake(local, {
      log,
      kind: 'http',
      step(held) {
        let head;
        try {
          head = parseRequestHead(held);
        } catch (error) {
          if (!isHttpRefusal(error)) throw error;
          handshake.refuse(refusalResponse(error.status, error.message), `${error.status} ${error.message}`);
          return 1;
        }
        if (head === null) return 0;
        const denied = check(head);
        if (denied) {
          handshake.refuse(refusalResponse(denied.status, denied.reason, denied.headers), `${denied.status} ${denied.reason}`);
          return 1;
        }
        const rest = held.subarray(head.length);
        if (head.method === 'CONNECT') return tunnel(head, rest);
        handshake.finish();
        startPlain(local, { head, rest, peer: handshake.peer, refuse: handshake.refuse, check, dial, open, queues, log });
        return held.length;
      },
    });

    const tunnel = (head, rest) => {
      const target = parseAuthority(head.target);
      if (!target) {
        handshake.refuse(refusalResponse(400, 'CONNECT takes host:port'), `400 CONNECT to ${JSON.stringify(head.target.slice(0, 80))}`);
        return 1;
      }
      handshake.finish();
      dialFor(local, dial, {
        connected(upstream) {
          local.write(CONNECTED);
          splice(local, upstream, target, rest);
          local.resume();
        },
        failed(error) {
          handshake.refuse(refusalResponse(502, 'the relay server is unreachable'), `502 the relay server is unreachable (${error.message})`);
        },
      });
      return head.length + rest.length;
    };
  };
}

// Plain proxying of one client connection: request heads read and
// rewritten, bodies counted through, responses passed back as they come.
function startPlain(local, { head, rest, peer, refuse, check, dial, open, queues, log }) {
  let leg = null;
  let held = Buffer.alloc(0);
  let bodyLeft = 0;

  const tearDown = (why) => {
    log.debug(`${peer}: http: ${why}`);
    if (leg) resetSocket(leg.upstream);
    resetSocket(local);
  };

  const legTo = (target) => {
    if (leg && leg.target.host === target.host && leg.target.port === target.port) return leg;
    if (leg) closeLeg(leg);
    const upstream = dial();
    let answered = false;
    const current = { target, upstream };
    current.stream = open(upstream, target, (data) => local.write(data));
    upstream.on('data', (data) => {
      if (leg !== current) return;
      answered = true;
      local.cork();
      try {
        current.stream.decode(data);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return tearDown(error.message);
      } finally {
        local.uncork();
      }
      if (queues.full(local)) {
        upstream.pause();
        local.once('drain', () => upstream.resume());
      }
    });
    upstream.on('end', () => {
      if (leg !== current) return;
      try {
        current.stream.decodeEnded();
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return tearDown(error.message);
      }
      // The target closed (Connection: close, say): so does this connection.
      local.end();
    });
    upstream.on('error', (error) => {
      if (leg !== current) return;
      if (!answered && local.writable) {
        log.warn(`${peer}: http: 502 ${target.host}:${target.port}: ${error.message}; refused`);
        return local.end(refusalResponse(502, 'the relay server is unreachable'));
      }
      tearDown(error.message);
    });
    upstream.on('close', () => queues.release(upstream));
    leg = current;
    return current;
  };

  // A leg the connection moved away from had its answer: it ends cleanly.
  const closeLeg = (old) => {
    old.upstream.on('error', () => {});
    try {
      old.stream.encodeEnded();
    } catch (error) {
      if (!isProtocolError(error)) throw error;
    }
    old.upstream.end();
  };

  const send = (data) => {
    leg.stream.encode(data);
    if (queues.full(leg.upstream)) {
      local.pause();
      leg.upstream.once('drain', () => local.resume());
    }
  };

  const forward = (request) => {
    const denied = check(request);
    if (denied) return refuse(refusalResponse(denied.status, denied.reason, denied.headers), `${denied.status} ${denied.reason}`);
    const rewritten = originForm(request);
    if (rewritten.refusal) return refuse(refusalResponse(400, rewritten.refusal), `400 ${rewritten.refusal}`);
    legTo(rewritten.target);
    send(rewritten.head);
    return true;
  };

  const onData = (data) => {
    held = held.length === 0 ? data : Buffer.concat([held, data]);
    while (held.length > 0) {
      if (bodyLeft > 0) {
        const part = held.subarray(0, bodyLeft);
        held = held.subarray(part.length);
        bodyLeft -= part.length;
        send(part);
        continue;
      }
      let request;
      try {
        request = parseRequestHead(held);
        if (request === null) return;
        bodyLeft = bodyLength(request);
      } catch (error) {
        if (!isHttpRefusal(error)) throw error;
        return stop(refuse(refusalResponse(error.status, error.message), `${error.status} ${error.message}`));
      }
      held = held.subarray(request.length);
      if (forward(request) !== true) return stop();
    }
  };
  const stop = () => {
    local.off('data', onData);
    if (leg) closeLeg(leg);
    leg = null;
  };

  local.on('data', onData);
  local.on('end', () => {
    if (!leg) return local.end();
    try {
      leg.stream.encodeEnded();
    } catch (error) {
      if (!isProtocolError(error)) throw error;
    }
    leg.upstream.end();
  });
  local.on('error', (error) => tearDown(error.message));
  local.on('close', () => {
    queues.release(local);
    if (leg) resetSocket(leg.upstream);
  });
  local.setTimeout(IDLE_TIMEOUT_MS, () => tearDown(`idle for ${IDLE_TIMEOUT_MS} ms`));
  try {
    bodyLeft = bodyLength(head);
  } catch (error) {
    if (!isHttpRefusal(error)) throw error;
    return refuse(refusalResponse(error.status, error.message), `${error.status} ${error.message}`);
  }
  if (forward(head) !== true) return stop();
  onData(rest);
  local.resume();
}

// The request as its host should see it: the path in the request line, the
// proxy's own headers gone, a Host header. Refuses what is not an http://
// absolute URI (a proxy is no origin server).
function originForm(request) {
  const { method, target, version, headers } = request;
  if (!/^http:\/\//i.test(target)) {
    return { refusal: `${method} ${JSON.stringify(target.slice(0, 80))}: a proxy takes an absolute http:// URI (or CONNECT host:port)` };
  }
  const pathAt = target.slice(7).search(/[/?#]/);
  const authorityText = pathAt === -1 ? target.slice(7) : target.slice(7, 7 + pathAt);
  const authority = parseAuthority(authorityText.replace(/^[^@]*@/, ''), 80);
  if (!authority) return { refusal: `no host in ${JSON.stringify(target.slice(0, 80))}` };
  const rest = pathAt === -1 ? '' : target.slice(7 + pathAt).replace(/#.*$/, '');
  const path = rest.startsWith('/') ? rest : `/${rest}`;
  const kept = headers.filter(([name]) => !DROPPED_HEADERS.has(name)).map(([, , line]) => line);
  const host = headers.some(([name]) => name === 'host') ? [] : [`Host: ${authorityText}`];
  const head = Buffer.from([`${method} ${path} ${version}`, ...host, ...kept, '', ''].join('\r\n'), 'latin1');
  return { target: authority, head };
}
