import { muxCarriesUdp } from '../../chain/mux-plan.js';
import { prepareUdpChain } from '../../chain/udp-form.js';
import { isProtocolError } from '../../wire/protocol-error.js';
import { formatEndpoint } from '../endpoint.js';
import { isLoopbackHost } from '../loopback.js';
import { createAssociations, DEFAULT_MAX_ASSOCIATIONS, DEFAULT_UDP_TIMEOUT_MS } from './associations.js';
import { bindUdp, closeUdp, createUdpSocket, sendDatagram, udpType } from './socket.js';
import { collectYoungEvery } from './young-collection.js';

// What the UDP relay server counts, as stats() gives it and its closing log line.
const COUNTS = ['datagrams', 'relayed', 'replies', 'refused', 'replays', 'targetsRefused', 'overCap', 'sendErrors'];

// The UDP relay server (as ss-server -u): every datagram that opens as the
// chain's is sent on to the target it names, from a socket of the sender's
// association, and whatever comes back to that socket, from any address,
// goes back to the sender sealed, naming its source.
//
// Every datagram is hostile until it opens: one that does not (garbage, a
// wrong key, truncated, a replay) is counted and dropped, silently, and
// creates nothing. An association exists only for a sender whose datagram
// opened, the table is bounded in count (a full one refuses new senders,
// counted, warned of once) and idle time, and a target off this machine is
// refused unless allowed, as the TCP server does.
export async function startUdpRelayServer(options) {
  const { listen, password, catalogue, presets, allowRemote = false, log } = options;
  const { timeoutMs = DEFAULT_UDP_TIMEOUT_MS, maxAssociations = DEFAULT_MAX_ASSOCIATIONS } = options;
  // A multiplexing chain's UDP comes as sessions in its tunnels
  // (mux-server.js), which the TCP relay serves: no UDP port to open.
  if (muxCarriesUdp(catalogue, presets)) {
    log.info('udp: carried in the mux tunnels of the TCP port');
    return { address: listen, stats: () => ({}), close: () => Promise.resolve() };
  }
  const sessions = prepareUdpChain(catalogue, presets, { password }).server();
  const counts = Object.fromEntries(COUNTS.map((name) => [name, 0]));
  const socket = createUdpSocket(listen.host, log);
  const associations = createAssociations({
    timeoutMs,
    maxAssociations,
    close(association) {
      for (const outbound of Object.values(association.outbound)) closeUdp(outbound);
      sessions.release(association.session);
    },
  });
  // Every datagram read, from a client or a target, refused or relayed.
  const received = collectYoungEvery();
  const failed = (error) => {
    counts.sendErrors += 1;
    log.debug(`udp: ${error.message}`);
  };

  // Datagram after datagram names the same target: the last host's checks
  // are kept rather than made again (two regular expressions each).
  let target = { host: null, allowed: false, type: null };
  const targetOf = (host) => {
    if (host !== target.host) target = { host, allowed: allowRemote || isLoopbackHost(host), type: udpType(host) };
    return target;
  };

  // One socket per family the association's targets need, made at its
  // first datagram there.
  const outboundFor = (association, type) => {
    let outbound = association.outbound[type];
    if (!outbound) {
      outbound = createUdpSocket(type === 'udp6' ? '::' : '0.0.0.0', log);
      outbound.on('message', (data, source) => {
        received(data.length);
        associations.touch(association.key);
        counts.replies += 1;
        const packet = association.session.encode({ host: source.address, port: source.port }, data);
        sendDatagram(socket, packet, association.client.port, association.client.address, failed);
      });
      association.outbound[type] = outbound;
    }
    return outbound;
  };

  let warnedFull = false;
  socket.on('message', (datagram, client) => {
    counts.datagrams += 1;
    received(datagram.length);
    const key = `${client.address}|${client.port}`;
    let association = associations.get(key);
    // A full table refuses a new sender whatever it sent, so that is
    // settled before the datagram is opened: a flood of new senders then
    // costs no key derivation or decryption, and leaves no cipher state
    // behind for the collector, once the table is full.
    if (!association && associations.full) {
      counts.overCap += 1;
      if (!warnedFull) {
        warnedFull = true;
        log.warn(
          `udp: ${maxAssociations} associations (--udp-max-associations) in use; refusing new senders until some are idle for --udp-timeout (said once)`,
        );
      }
      return;
    }
    let opened;
    try {
      opened = sessions.decode(datagram, association?.session);
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      counts.refused += 1;
      if (error.replay) counts.replays += 1;
      log.debug(`udp ${formatEndpoint({ host: client.address, port: client.port })}: ${error.message}`);
      return;
    }
    const { session, address, payload } = opened;
    const { allowed, type } = targetOf(address.host);
    // Port 0 names no target (and Node's send would throw on it).
    if (address.port === 0 || !allowed) {
      counts.targetsRefused += 1;
      log.debug(
        `udp: refused target ${formatEndpoint(address)}: ${address.port === 0 ? 'port 0' : 'not loopback (start with --allow-remote to permit)'}`,
      );
      return;
    }
    if (!association) {
      association = associations.add(key, {
        key,
        client: { address: client.address, port: client.port },
        session,
        outbound: {},
      });
      sessions.hold(session);
    } else if (association.session !== session) {
      sessions.hold(session);
      sessions.release(association.session);
      association.session = session;
    }
    counts.relayed += 1;
    sendDatagram(outboundFor(association, type), payload, address.port, address.host, failed);
  });

  const address = await bindUdp(socket, listen);
  const summary = () =>
    `${counts.datagrams} datagrams, ${counts.relayed} relayed, ${counts.replies} replies, ${counts.refused} refused (${counts.replays} replays), ${counts.overCap} over the association cap, ${counts.targetsRefused} to a refused target`;
  return {
    address,
    stats: () => ({ ...counts, associations: associations.size }),
    close() {
      log.info(`udp relay server: ${summary()}`);
      associations.closeAll();
      return closeUdp(socket);
    },
  };
}
