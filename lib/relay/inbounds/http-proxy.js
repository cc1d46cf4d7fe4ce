import { timingSafeEqual } from 'node:crypto';
import { isProtocolError } from '../../wire/protocol-error.js';
import { resetSocket } from '../reset-socket.js';
import { dialFor, readHandshake } from './handshake.js';
import {
  bodyLength,
  headerValues,
  isHttpRefusal,
  parseAuthority,
  parseRequestHead,
  refusalResponse,
} from './http-proxy-head.js';

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
    return (
      given.length === 1 &&
      given[0].length === credentials.length &&
      timingSafeEqual(Buffer.from(given[0]), Buffer.from(credentials))
    );
  };
  const check = (head) => {
    if (authorized(head)) return null;
    return {
      status: 407,
      reason: 'missing or wrong Proxy-Authorization',
      headers: ['Proxy-Authenticate: Basic realm="cipherbench"'],
    };
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
          handshake.refuse(
            refusalResponse(denied.status, denied.reason, denied.headers),
            `${denied.status} ${denied.reason}`,
          );
          return 1;
        }
        const rest = held.subarray(head.length);
        if (head.method === 'CONNECT') return tunnel(head, rest);
        handshake.finish();
        startPlain(local, {
          head,
          rest,
          peer: handshake.peer,
          refuse: handshake.refuse,
          check,
          dial,
          open,
          queues,
          log,
        });
        return held.length;
      },
    });

    const tunnel = (head, rest) => {
      const target = parseAuthority(head.target);
      if (!target) {
        handshake.refuse(
          refusalResponse(400, 'CONNECT takes host:port'),
          `400 CONNECT to ${JSON.stringify(head.target.slice(0, 80))}`,
        );
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
          handshake.refuse(
            refusalResponse(502, 'the relay server is unreachable'),
            `502 the relay server is unreachable (${error.message})`,
          );
        },
      });
      return head.length + rest.length;
    };
  };
}

// Plain proxying of one client connection: request heads read and
// rewritten, bodies counted through, responses passed back as they come.
function startPlain(local, { head, rest, ...context }) {
  const plain = new PlainConnection(local, context);
  local.on('data', plain.onData);
  local.on('end', () => plain.ended());
  local.on('error', (error) => plain.tearDown(error.message));
  local.on('close', () => {
    context.queues.release(local);
    if (plain.leg) resetSocket(plain.leg.upstream);
  });
  local.setTimeout(IDLE_TIMEOUT_MS, () => plain.tearDown(`idle for ${IDLE_TIMEOUT_MS} ms`));
  try {
    plain.bodyLeft = bodyLength(head);
  } catch (error) {
    if (!isHttpRefusal(error)) throw error;
    return context.refuse(refusalResponse(error.status, error.message), `${error.status} ${error.message}`);
  }
  if (plain.forward(head) !== true) return plain.stop();
  plain.onData(rest);
  local.resume();
}

// One plain-proxy connection's state: what it holds of a request head not
// yet whole, how much of a body is still to pass, and its leg: the
// upstream connection (through the relay) to the target of its latest
// request, { target, upstream, stream }. A request to another target
// closes the leg and opens another.
class PlainConnection {
  constructor(local, { peer, refuse, check, dial, open, queues, log }) {
    Object.assign(this, { local, peer, refuse, check, dial, open, queues, log });
    this.leg = null;
    this.held = Buffer.alloc(0);
    this.bodyLeft = 0;
    this.onData = this.onData.bind(this);
  }

  tearDown(why) {
    this.log.debug(`${this.peer}: http: ${why}`);
    if (this.leg) resetSocket(this.leg.upstream);
    resetSocket(this.local);
  }

  legTo(target) {
    const { leg } = this;
    if (leg && leg.target.host === target.host && leg.target.port === target.port) return leg;
    if (leg) closeLeg(leg);
    const upstream = this.dial();
    const current = { target, upstream };
    current.stream = this.open(upstream, target, (data) => this.local.write(data));
    this.watch(current);
    this.leg = current;
    return current;
  }

  // A leg's answers go back to the client; once the connection has moved
  // to another leg, this one's events are no longer its business.
  watch(current) {
    const { local, queues, log, peer } = this;
    const { upstream, target } = current;
    let answered = false;
    upstream.on('data', (data) => {
      if (this.leg !== current) return;
      answered = true;
      local.cork();
      try {
        current.stream.decode(data);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return this.tearDown(error.message);
      } finally {
        local.uncork();
      }
      if (queues.full(local)) {
        upstream.pause();
        local.once('drain', () => upstream.resume());
      }
    });
    upstream.on('end', () => {
      if (this.leg !== current) return;
      try {
        current.stream.decodeEnded();
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return this.tearDown(error.message);
      }
      // The target closed (Connection: close, say): so does this connection.
      local.end();
    });
    upstream.on('error', (error) => {
      if (this.leg !== current) return;
      if (!answered && local.writable) {
        log.warn(`${peer}: http: 502 ${target.host}:${target.port}: ${error.message}; refused`);
        return local.end(refusalResponse(502, 'the relay server is unreachable'));
      }
      this.tearDown(error.message);
    });
    upstream.on('close', () => queues.release(upstream));
  }

  send(data) {
    const { leg, local } = this;
    leg.stream.encode(data);
    if (this.queues.full(leg.upstream)) {
      local.pause();
      leg.upstream.once('drain', () => local.resume());
    }
  }

  forward(request) {
    const denied = this.check(request);
    if (denied)
      return this.refuse(
        refusalResponse(denied.status, denied.reason, denied.headers),
        `${denied.status} ${denied.reason}`,
      );
    const rewritten = originForm(request);
    if (rewritten.refusal) return this.refuse(refusalResponse(400, rewritten.refusal), `400 ${rewritten.refusal}`);
    this.legTo(rewritten.target);
    this.send(rewritten.head);
    return true;
  }

  onData(data) {
    this.held = this.held.length === 0 ? data : Buffer.concat([this.held, data]);
    while (this.held.length > 0) {
      if (this.bodyLeft > 0) {
        const part = this.held.subarray(0, this.bodyLeft);
        this.held = this.held.subarray(part.length);
        this.bodyLeft -= part.length;
        this.send(part);
        continue;
      }
      let request;
      try {
        request = parseRequestHead(this.held);
        if (request === null) return;
        this.bodyLeft = bodyLength(request);
      } catch (error) {
        if (!isHttpRefusal(error)) throw error;
        this.refuse(refusalResponse(error.status, error.message), `${error.status} ${error.message}`);
        return this.stop();
      }
      this.held = this.held.subarray(request.length);
      if (this.forward(request) !== true) return this.stop();
    }
  }

  // The client sent its last byte: the leg's target is told, as a
  // connection with no leg is closed.
  ended() {
    const { leg } = this;
    if (!leg) return this.local.end();
    try {
      leg.stream.encodeEnded();
    } catch (error) {
      if (!isProtocolError(error)) throw error;
    }
    leg.upstream.end();
  }

  stop() {
    this.local.off('data', this.onData);
    if (this.leg) closeLeg(this.leg);
    this.leg = null;
  }
}

// A leg the connection moved away from had its answer: it ends cleanly.
function closeLeg(old) {
  old.upstream.on('error', () => {});
  try {
    old.stream.encodeEnded();
  } catch (error) {
    if (!isProtocolError(error)) throw error;
  }
  old.upstream.end();
}

// The request as its host should see it: the path in the request line, the
// proxy's own headers gone, a Host header. Refuses what is not an http://
// absolute URI (a proxy is no origin server).
function originForm(request) {
  const { method, target, version, headers } = request;
  if (!/^http:\/\//i.test(target)) {
    return {
      refusal: `${method} ${JSON.stringify(target.slice(0, 80))}: a proxy takes an absolute http:// URI (or CONNECT host:port)`,
    };
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
