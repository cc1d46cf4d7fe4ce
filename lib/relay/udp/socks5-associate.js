import net from 'node:net';
import { prepareUdpChain } from '../../chain/udp-form.js';
import { isProtocolError } from '../../wire/protocol-error.js';
import { decodeSocks5UdpDatagram, encodeSocks5UdpDatagram } from '../../wire/socks5-udp-header.js';
import { createAssociations } from './associations.js';
import { muxDatagramSessions } from './over-mux.js';
import { bindUdp, closeUdp, createUdpSocket, enlargeBuffers, sendDatagram } from './socket.js';

// What UDP ASSOCIATE counts, as stats() gives it and its closing log line.
const COUNTS = ['associations', 'datagrams', 'relayed', 'replies', 'dropped', 'strangers', 'overCap', 'sendErrors'];

// SOCKS5 UDP ASSOCIATE for the relay client's socks5 inbound (RFC 1928,
// section 7, as ss-local -u): each association gets a UDP socket of its own
// on the address the application reached the TCP port on, named in the
// reply, and a socket to the relay server with a session of the chain.
// A datagram's address and data go to the server as the chain's UDP packet
// (the Shadowsocks payload is the SOCKS5 one without RSV and FRAG), and
// the server's answers come back in the SOCKS5 header naming their source.
//
// One socket per association rather than one shared socket keyed by the
// sender: the association is its control connection's, and a shared
// socket could only tell which connection a datagram belongs to by its
// source address, which the request need not name (zeros are the rule) and
// which two associations from one host would share. Its own port makes
// that question disappear, and closing the connection closes the socket.
//
// Only the control connection's IP address may use the socket. The port is
// the one the request named, or else the one the first datagram comes
// from: replies go to that one sender, and a datagram from another port,
// even of the same address, is dropped. What is dropped is counted and
// logged at debug.
//
// The association lives as long as its control connection, and no longer
// than `timeoutMs` without a datagram either way: then the socket closes
// and so does the connection, which tells the application. Beyond
// `maxAssociations` at once a request is refused.
//
// With a multiplexing chain, `muxPool` (the relay client's) carries an
// association's datagrams as Mux.Cool UDP sessions, one per target, in
// place of the socket to the server (over-mux.js).
export function createSocks5Associate({
  server,
  serverAddress,
  password,
  catalogue,
  presets,
  timeoutMs,
  maxAssociations,
  log,
  muxPool = null,
}) {
  const chain = muxPool ? null : prepareUdpChain(catalogue, presets, { password });
  const counts = Object.fromEntries(COUNTS.map((name) => [name, 0]));
  const table = createAssociations({ timeoutMs, maxAssociations, close: (association) => association.close() });
  let nextKey = 0;
  const sent = (error) => {
    if (!error) return;
    counts.sendErrors += 1;
    log.debug(`udp associate: ${error.message}`);
  };

  // The association of `control` (the TCP connection whose request asked
  // for one; `requested` the request's address): resolves with the bound
  // { host, port } to name in the reply, or null when none can be made
  // (the table is full, or the connection went away meanwhile).
  async function open(control, requested) {
    if (table.full) {
      counts.overCap += 1;
      log.warn(`udp associate: ${maxAssociations} associations (--udp-max-associations) in use; refused`);
      return null;
    }
    const key = nextKey++;
    const peer = `${control.remoteAddress}:${control.remotePort}`;
    const clientHost = unmapped(control.remoteAddress);
    const localHost = unmapped(control.localAddress);
    const socket = createUdpSocket(localHost, log);
    const upstream = muxPool ? null : createUdpSocket(serverAddress, log);
    const session = muxPool ? null : chain.client();
    let clientPort = requested.port === 0 ? null : requested.port;
    let closed = false;
    const answer = (address, payload) => {
      if (clientPort === null) return;
      table.touch(key);
      counts.replies += 1;
      sendDatagram(socket, encodeSocks5UdpDatagram(address, payload), clientPort, clientHost, sent);
    };
    const overMux =
      muxPool && muxDatagramSessions({ pool: muxPool, deliver: (payload, source) => answer(source, payload) });
    const close = () => {
      if (closed) return;
      closed = true;
      closeUdp(socket);
      if (upstream) closeUdp(upstream);
      overMux?.close();
      control.destroy();
      log.debug(`${peer}: udp associate: closed (${table.size} open)`);
    };
    const drop = (why) => {
      counts.dropped += 1;
      log.debug(`${peer}: udp associate: ${why}; dropped`);
    };

    socket.on('message', (datagram, from) => {
      counts.datagrams += 1;
      if (from.address !== clientHost || (clientPort !== null && from.port !== clientPort)) {
        counts.strangers += 1;
        log.debug(
          `${peer}: udp associate: a datagram from ${from.address}:${from.port}, not the association's client; dropped`,
        );
        return;
      }
      let request;
      try {
        request = decodeSocks5UdpDatagram(datagram);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return drop(error.message);
      }
      clientPort = from.port;
      table.touch(key);
      if (overMux) {
        if (!overMux.send(request.address, request.data))
          return drop('the mux tunnel is full, or too large a datagram');
        counts.relayed += 1;
        return;
      }
      counts.relayed += 1;
      sendDatagram(upstream, session.encode(request.address, request.data), server.port, serverAddress, sent);
    });
    upstream?.on('message', (packet, from) => {
      if (from.port !== server.port || from.address !== serverAddress)
        return drop(`a datagram from ${from.address}:${from.port}, not the relay server`);
      let opened;
      try {
        opened = session.decode(packet);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        return drop(`from the server: ${error.message}`);
      }
      answer(opened.address, opened.payload);
    });
    upstream?.once('listening', () => enlargeBuffers(upstream));

    let bound;
    try {
      bound = await bindUdp(socket, { host: localHost, port: 0 });
    } catch (error) {
      log.warn(`${peer}: udp associate: cannot bind a UDP socket on ${localHost}: ${error.message}`);
      close();
      return null;
    }
    if (control.destroyed || table.full) {
      if (table.full) counts.overCap += 1;
      close();
      return null;
    }
    table.add(key, { close });
    counts.associations += 1;
    control.once('close', () => table.delete(key));
    log.debug(`${peer}: udp associate: ${bound.host}:${bound.port} (${table.size} open)`);
    return bound;
  }

  return {
    open,
    stats: () => ({ ...counts, open: table.size }),
    close() {
      log.info(
        `udp associate: ${counts.associations} associations, ${counts.datagrams} datagrams, ${counts.relayed} relayed, ${counts.replies} replies, ${counts.dropped} dropped, ${counts.strangers} from elsewhere, ${counts.overCap} refused over the association cap`,
      );
      table.closeAll();
    },
  };
}

// A TCP server on '::' sees IPv4 peers as ::ffff:a.b.c.d; their datagrams
// come from, and go to, a.b.c.d.
function unmapped(address) {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return v4 && net.isIPv4(v4[1]) ? v4[1] : address;
}
