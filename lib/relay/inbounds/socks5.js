import { timingSafeEqual } from 'node:crypto';
import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from '../../wire/address-header.js';
import { isProtocolError, protocolError } from '../../wire/protocol-error.js';
import { dialFor, readHandshake } from './handshake.js';

// SOCKS5 (RFC 1928) CONNECT, with no authentication, or with a username
// and password (RFC 1929) when the relay client is given them. The request's
// address is the Shadowsocks address header itself (ATYP, address, port),
// read by the same code. UDP ASSOCIATE is served when the relay client has
// `associate` (--udp, udp/socks5-associate.js), else refused (command not
// supported) as ss-local without -u refuses it; BIND always is.
const VERSION = 5;
const AUTH_VERSION = 1;
const NO_AUTH = 0x00;
const USER_PASSWORD = 0x02;
const NO_ACCEPTABLE_METHOD = 0xff;
const CONNECT = 0x01;
const UDP_ASSOCIATE = 0x03;

// RFC 1928 section 6.
const SOCKS5_REPLIES = Object.freeze({
  succeeded: 0x00,
  generalFailure: 0x01,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
});

// A reply's bound address says nothing a client uses (ss-local sends
// zeros too): 0.0.0.0:0.
const socks5Reply = (code) => Buffer.from([VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]);

// UDP ASSOCIATE's reply names where the datagrams go.
const boundReply = (bound) =>
  Buffer.concat([Buffer.from([VERSION, SOCKS5_REPLIES.succeeded, 0]), encodeAddressHeader(bound)]);

export function socks5Inbound({ auth, dial, splice, associate, log }) {
  return (local) => {
    let stage = 'greeting';
    const handshake = readHandshake(local, {
      log,
      kind: 'socks5',
      step: (held) => STEPS[stage](held),
    });
    const STEPS = {
      greeting(held) {
        if (held[0] !== VERSION) return refused(null, `not SOCKS5 (version byte ${held[0]})`);
        if (held.length < 2) return 0;
        const count = held[1];
        if (held.length < 2 + count) return 0;
        const methods = held.subarray(2, 2 + count);
        const wanted = auth ? USER_PASSWORD : NO_AUTH;
        if (!methods.includes(wanted)) {
          return refused(
            Buffer.from([VERSION, NO_ACCEPTABLE_METHOD]),
            `no acceptable method (offered ${[...methods].join(', ') || 'none'}, ${auth ? 'username/password' : 'no authentication'} required)`,
          );
        }
        local.write(Buffer.from([VERSION, wanted]));
        stage = auth ? 'auth' : 'request';
        return 2 + count;
      },
      auth(held) {
        if (held[0] !== AUTH_VERSION)
          return refused(
            Buffer.from([AUTH_VERSION, 1]),
            `username/password version byte ${held[0]}, not ${AUTH_VERSION}`,
          );
        if (held.length < 2) return 0;
        const userEnd = 2 + held[1];
        if (held.length < userEnd + 1) return 0;
        const passwordEnd = userEnd + 1 + held[userEnd];
        if (held.length < passwordEnd) return 0;
        const user = held.subarray(2, userEnd);
        const password = held.subarray(userEnd + 1, passwordEnd);
        if (!(sameBytes(user, auth.user) & sameBytes(password, auth.password))) {
          return refused(Buffer.from([AUTH_VERSION, 1]), 'wrong username or password');
        }
        local.write(Buffer.from([AUTH_VERSION, 0]));
        stage = 'request';
        return passwordEnd;
      },
      request(held) {
        if (held[0] !== VERSION)
          return refused(socks5Reply(SOCKS5_REPLIES.generalFailure), `request version byte ${held[0]}, not ${VERSION}`);
        if (held.length < 4) return 0;
        const command = held[1];
        if (command !== CONNECT && !(command === UDP_ASSOCIATE && associate)) {
          return refused(
            socks5Reply(SOCKS5_REPLIES.commandNotSupported),
            `command ${command} not supported (CONNECT${associate ? ' and UDP ASSOCIATE' : ''} only)`,
          );
        }
        const address = held.subarray(3);
        let length;
        try {
          length = addressHeaderLength((at) => address[at], address.length);
        } catch (error) {
          if (!isProtocolError(error)) throw error;
          return refused(socks5Reply(SOCKS5_REPLIES.addressTypeNotSupported), error.message);
        }
        if (length === 0) return 0;
        const target = decodeAddressHeader(address.subarray(0, length));
        const rest = address.subarray(length);
        handshake.finish();
        if (command === UDP_ASSOCIATE) associateFor(target);
        else connect(target, rest);
        return 3 + length;
      },
    };
    const refused = (reply, reason) => {
      handshake.refuse(reply, reason);
      return 1;
    };
    const connect = (target, rest) =>
      dialFor(local, dial, {
        connected(upstream) {
          local.write(socks5Reply(SOCKS5_REPLIES.succeeded));
          splice(local, upstream, target, rest);
          local.resume();
        },
        failed(error) {
          handshake.refuse(
            socks5Reply(SOCKS5_REPLIES.connectionRefused),
            `the relay server is unreachable (${error.message})`,
          );
        },
      });
    // The connection then only keeps the association alive: whatever the
    // application sends on it is read and ignored, and its end is the
    // association's (socks5-associate.js closes the socket on 'close').
    const associateFor = async (requested) => {
      local.on('error', (error) => log.debug(`${handshake.peer}: socks5 udp associate: ${error.message}`));
      const bound = await associate.open(local, requested);
      if (local.destroyed) return;
      if (!bound)
        return handshake.refuse(socks5Reply(SOCKS5_REPLIES.generalFailure), 'no UDP association can be made now');
      local.on('data', () => {});
      local.once('end', () => local.end());
      local.write(boundReply(bound));
      local.resume();
    };
  };
}

// The request an application sends for `target`, for the request workload's
// own SOCKS5 client: greeting (no authentication) and CONNECT in one write.
export function socks5ConnectRequest(target) {
  return Buffer.concat([Buffer.from([VERSION, 1, NO_AUTH, VERSION, CONNECT, 0]), encodeAddressHeader(target)]);
}

// How many bytes of a server's answer to socks5ConnectRequest() make it
// whole (0 while more are needed), or a protocolError when it refused: the
// method choice, then the reply, whose length depends on its address type.
export function socks5AnswerLength(peekByte, available) {
  if (available < 2) return 0;
  if (peekByte(0) !== VERSION || peekByte(1) !== NO_AUTH)
    throw protocolError(`SOCKS5 method answer ${peekByte(0)} ${peekByte(1)}, not ${VERSION} ${NO_AUTH}`);
  if (available < 4) return 0;
  if (peekByte(3) !== SOCKS5_REPLIES.succeeded) throw protocolError(`SOCKS5 reply code ${peekByte(3)}`);
  const length = addressHeaderLength((at) => peekByte(5 + at), available - 5);
  return length === 0 ? 0 : 5 + length;
}

function sameBytes(given, expected) {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
