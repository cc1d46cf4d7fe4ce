import net from 'node:net';
import { encodeAddressHeader } from '../../lib/wire/address-header.js';

// A SOCKS5 UDP client (RFC 1928, sections 3, 4 and 7), for the tests of
// UDP ASSOCIATE: curl has none. The greeting offers no authentication, the
// request asks for an association, and the reply's BND.ADDR and BND.PORT
// say where the datagrams go, each with the header
// [RSV 2][FRAG][ATYP][DST.ADDR][DST.PORT] before its data.

// Reads exactly what the server answers, `need(held)` telling how many
// bytes make it whole (0: more).
function readAnswer(socket, need) {
  return new Promise((resolve, reject) => {
    let held = Buffer.alloc(0);
    const onData = (data) => {
      held = Buffer.concat([held, data]);
      const length = need(held);
      if (length === 0) return;
      done();
      if (held.length > length) reject(new Error(`SOCKS5 server sent ${held.length - length} bytes past its answer`));
      else resolve(held);
    };
    const onEnd = () => {
      done();
      reject(
        Object.assign(new Error(`SOCKS5 server closed after ${held.length} bytes (${held.toString('hex')})`), {
          answer: held,
        }),
      );
    };
    const done = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
    };
    const onError = (error) => {
      done();
      reject(error);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
  });
}

const replyLength = (held) => {
  if (held.length < 5) return 0;
  const atyp = held[3];
  const length = atyp === 1 ? 10 : atyp === 4 ? 22 : atyp === 3 ? 7 + held[4] : 4;
  return held.length >= length ? length : 0;
};

// Opens an association through the SOCKS5 server on `port`. Resolves with
// { control (the TCP connection: the association lives as long as it),
// relay: { host, port } (where to send datagrams) }; rejects with `reply`
// set to the reply code when the server refuses.
// With `auth` ({ user, password }) the greeting offers username and
// password (RFC 1929) instead.
export async function socks5UdpAssociate({
  port,
  host = '127.0.0.1',
  request = { host: '0.0.0.0', port: 0 },
  auth = null,
}) {
  const control = net.connect(port, host);
  await new Promise((resolve, reject) => {
    control.once('connect', resolve);
    control.once('error', reject);
  });
  try {
    return await associate(control, { request, auth, host });
  } catch (error) {
    control.destroy();
    throw error;
  }
}

async function associate(control, { request, auth, host }) {
  const twoBytes = (held) => (held.length >= 2 ? 2 : 0);
  control.write(Buffer.from([5, 1, auth ? 2 : 0]));
  const method = await readAnswer(control, twoBytes);
  if (method[0] !== 5 || method[1] !== (auth ? 2 : 0))
    throw new Error(`SOCKS5 method answer ${method.toString('hex')}`);
  if (auth) {
    const [user, password] = [Buffer.from(auth.user), Buffer.from(auth.password)];
    control.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([password.length]), password]));
    const status = await readAnswer(control, twoBytes);
    if (status[1] !== 0) throw new Error(`SOCKS5 username/password refused (${status.toString('hex')})`);
  }
  control.write(Buffer.concat([Buffer.from([5, 3, 0]), encodeAddressHeader(request)]));
  const reply = await readAnswer(control, replyLength);
  if (reply[1] !== 0) {
    throw Object.assign(new Error(`SOCKS5 UDP ASSOCIATE refused with reply ${reply[1]}`), { reply: reply[1] });
  }
  const bound = reply[3] === 1 ? reply.subarray(4, 8).join('.') : null;
  if (!bound)
    throw new Error(`SOCKS5 UDP ASSOCIATE reply with address type ${reply[3]} (only IPv4 expected on loopback)`);
  // A server on 0.0.0.0 may answer with it: the datagrams then go where
  // the connection went.
  const relay = { host: bound === '0.0.0.0' ? host : bound, port: reply.readUInt16BE(8) };
  // The server ending the association may reset the connection: the
  // tests watch for that by 'close'.
  control.on('error', () => {});
  return { control, relay, close: () => control.destroy() };
}

// The SOCKS5 UDP header for datagrams to `target`, and its check on those
// that come back: a reply must name `target` as its source, else it is
// not the echo of what was sent (decode returns null).
export function socks5UdpFrame(target) {
  const header = Buffer.concat([Buffer.from([0, 0, 0]), encodeAddressHeader(target)]);
  return {
    encode: (data) => Buffer.concat([header, data]),
    decode: (datagram) =>
      datagram.length >= header.length && datagram.subarray(0, header.length).equals(header)
        ? datagram.subarray(header.length)
        : null,
  };
}
