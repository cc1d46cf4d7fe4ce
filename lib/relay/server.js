import net from 'node:net';
import { prepareMux } from '../chain/mux-plan.js';
import { prepareChain } from '../chain/pipeline.js';
import { prepareTransport } from '../chain/transport.js';
import { isProtocolError, protocolError } from '../wire/protocol-error.js';
import { bridge } from './bridge.js';
import { resetSocket } from './reset-socket.js';
import { formatEndpoint, peerLabel } from './endpoint.js';
import { isLoopbackHost } from './loopback.js';
import { createSocketSet, listen as listenOn } from './listener.js';
import { createSocketList } from './socket-list.js';
import { serveMux } from './mux-server.js';
import { createSaltFilter, SERVER_FILTER } from './salt-filter.js';
import { connectCorked, SERVER_SOCKET_OPTIONS } from './socket-options.js';
import { createWriteQueues } from './write-queues.js';

export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_CONNECTIONS = 4096;

// The relay server: decodes what a relay client (or any Shadowsocks client)
// sends, connects to the target named in the stream's address header, and
// encodes the target's replies back.
//
// Before a connection names its target, the server gives nothing away: a
// connection that breaks the protocol (a wrong key, a bad tag, a replayed
// salt, a bad header, a refused target) is read and discarded until the
// handshake timeout, as outline-ss-server does, and every connection that
// has not named a target by then is reset, whatever and however much it
// sent; one that ends first is reset at its end. A prober learns neither
// the method (from how many bytes make the server react) nor whether its
// bytes meant anything. After the target is connected, a violation resets
// both sides.
export async function startRelayServer({
  listen,
  password,
  catalogue,
  presets,
  allowRemote = false,
  handshakeTimeoutMs = DEFAULT_HANDSHAKE_TIMEOUT_MS,
  idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
  maxConnections = DEFAULT_MAX_CONNECTIONS,
  log,
}) {
  const salts = createSaltFilter(SERVER_FILTER);
  const counts = {
    accepted: 0,
    relayed: 0,
    diverted: 0,
    refused: 0,
    replays: 0,
    displaced: 0,
    dropped: 0,
    muxTunnels: 0,
    muxSessions: 0,
  };
  const served = {
    createPipeline: prepareChain(catalogue, presets, { password, salts }),
    transport: prepareTransport(catalogue, presets, { note: (text) => log.info(`transport: ${text}`) }),
    mux: prepareMux(catalogue, presets),
    salts,
    sockets: createSocketSet(),
    queues: createWriteQueues(),
    cap: connectionCap({ maxConnections, counts, log }),
    counts,
    allowRemote,
    handshakeTimeoutMs,
    idleTimeoutMs,
    log,
  };
  const { sockets } = served;
  const server = net.createServer(SERVER_SOCKET_OPTIONS, (socket) => {
    const place = served.cap.admit(socket);
    if (place) serve(socket, served, place);
  });

  const listening = await listenOn(server, listen, sockets, log);
  const summary = () =>
    `${counts.accepted} connections, ${counts.relayed} to a target, ${counts.refused} refused (${counts.replays} replays), ${counts.displaced} reset in their handshake to make room and ${counts.dropped} refused at the connection cap${counts.diverted > 0 ? `, ${counts.diverted} diverted to a fallback` : ''}${counts.muxTunnels > 0 ? `, ${counts.muxTunnels} of them mux tunnels carrying ${counts.muxSessions} sessions` : ''}`;
  return {
    ...listening,
    stats: () => ({ ...counts }),
    close() {
      log.info(`relay server: ${summary()}`);
      return listening.close();
    },
  };
}

// --max-connections: client connections open, and those of them that have
// not named a target yet, oldest first. At the cap, a new connection takes
// the place of the oldest one still in its handshake: a keyless flood then
// cannot hold every slot until its handshake timeouts run out while
// genuine clients are turned away. Only when every connection has named a
// target is the new one refused, with a reset as any refusal (not a FIN,
// which would tell a prober the cap was reached). The cap counts TCP
// connections, under any transport.
function connectionCap({ maxConnections, counts, log }) {
  let clientsOpen = 0;
  const handshaking = createSocketList();
  return {
    // `socket`'s place among the connections in their handshake, to pass
    // to named(), or null when it may not be served: it is reset then.
    admit(socket) {
      if (clientsOpen >= maxConnections) {
        const oldest = handshaking.shift();
        if (!oldest) {
          counts.dropped += 1;
          log.debug(
            `refused a connection over --max-connections ${maxConnections}: every connection has named its target`,
          );
          resetSocket(socket);
          return null;
        }
        counts.displaced += 1;
        log.debug(
          `${oldest.remoteAddress}:${oldest.remotePort}: reset to make room under --max-connections ${maxConnections}`,
        );
        resetSocket(oldest);
      }
      clientsOpen += 1;
      const place = handshaking.add(socket);
      socket.once('close', () => {
        clientsOpen -= 1;
        handshaking.remove(place);
      });
      return place;
    },
    // The connection named its target (or was diverted): no longer one to
    // make room with.
    named(place) {
      handshaking.remove(place);
    },
  };
}

// One client connection, from accept to its bridge: until the header names
// a target, the client has a handler of its own and no target socket
// exists, so hostile connections, most of which never get that far, cost
// one socket, not two. `served` is what the server's connections share.
function serve(socket, served, place) {
  const { createPipeline, transport, mux, salts, sockets, queues, cap } = served;
  const { counts, allowRemote, handshakeTimeoutMs, idleTimeoutMs, log } = served;
  sockets.add(socket);
  counts.accepted += 1;
  const peer = peerLabel(socket);
  // A transport's handshake (TLS) is part of the connection's: the same
  // timeout bounds both, and its failures are handled as any other
  // error before a target is named.
  const client = transport.accept(socket);
  let target = null;
  let refused = false;
  let bridged = null;
  let tunnel = null;

  const handshakeTimer = setTimeout(() => {
    if (!refused) log.debug(`${peer}: no target named within ${handshakeTimeoutMs} ms`);
    resetSocket(client);
  }, handshakeTimeoutMs);
  client.once('close', () => clearTimeout(handshakeTimer));

  const refuse = (error, replayed) => {
    refused = true;
    counts.refused += 1;
    if (replayed) {
      counts.replays += 1;
      log.warn(`${peer}: refused a replayed or reflected connection (${error.message}); ${counts.replays} so far`);
    } else {
      log.debug(`${peer}: ${error.message}; discarding its bytes until the handshake timeout`);
    }
  };
  // The handshake is over, for a target or a mux tunnel: no timeout, no
  // place to make room with, and the handshake's handlers off.
  const endHandshake = () => {
    clearTimeout(handshakeTimer);
    cap.named(place);
    client.off('data', onHandshakeData);
    client.off('end', onEarlyEnd);
    client.off('error', onEarlyError);
  };
  // The target is connected, and a bridge carries both ways from here.
  const connectTarget = ({ host, port }) => {
    endHandshake();
    target = sockets.add(connectCorked({ host, port }));
  };

  const checkTarget = ({ host, port }) => {
    if (!allowRemote && !isLoopbackHost(host)) {
      throw protocolError(
        `refused target ${formatEndpoint({ host, port })}: not loopback (start with --allow-remote to permit)`,
      );
    }
  };
  // The connection is a tunnel of sessions (mux-server.js), each to its
  // own target, from here on.
  const startTunnel = () => {
    endHandshake();
    counts.muxTunnels += 1;
    tunnel = serveMux({
      tunnel: client,
      mux,
      pipeline,
      decode,
      encode,
      connectTarget(address) {
        checkTarget(address);
        counts.relayed += 1;
        return sockets.add(connectCorked(address));
      },
      checkTarget,
      queues,
      counts,
      idleTimeoutMs,
      log,
      label: peer,
    });
  };

  const pipeline = createPipeline('server', {
    onTarget({ host, port }) {
      if (target || tunnel) throw protocolError('second address header');
      if (mux?.carries({ host, port })) return startTunnel();
      checkTarget({ host, port });
      counts.relayed += 1;
      connectTarget({ host, port });
      bridged = bridge(client, target, {
        aToB: decode,
        bToA: encode,
        aEnded: pipeline.decodeEnded,
        bEnded: pipeline.encodeEnded,
        log,
        label: peer,
        queues,
        idleTimeoutMs,
      });
    },
    // A disguise that meets a handshake not meant for it (a TLS hello
    // for another server name) hands the connection, with the bytes it
    // read, to the real server its chain names, which answers as it
    // would anyone: the relay carries both ways as they are.
    divert({ host, port }, received) {
      if (target || tunnel) throw protocolError('a diverted connection after its target');
      counts.diverted += 1;
      log.debug(`${peer}: diverted to ${formatEndpoint({ host, port })}`);
      connectTarget({ host, port });
      target.write(received);
      bridged = bridge(client, target, {
        aToB: (data) => target.write(data),
        bToA: (data) => client.write(data),
        log,
        label: peer,
        queues,
        idleTimeoutMs,
      });
    },
  });
  const decode = pipeline.decoder((data) => (tunnel ? tunnel.read(data) : target.write(data)));
  const encode = pipeline.encoder((data) => client.write(data));
  const onHandshakeData = (data) => {
    if (refused) return;
    // The filter counts every repeat it refuses; a count that moved
    // during this call was this connection's salt.
    const repeatsBefore = salts.refused;
    try {
      decode(data);
    } catch (error) {
      if (!isProtocolError(error)) throw error;
      // The header came in this same read and a later stage broke:
      // the target exists, and the bridge resets both.
      if (bridged) return bridged.tearDown(error);
      if (tunnel) return tunnel.fail(error);
      refuse(error, salts.refused > repeatsBefore);
    }
  };
  const onEarlyEnd = () => {
    log.debug(`${peer}: ended before naming a target`);
    resetSocket(client);
  };
  const onEarlyError = (error) => {
    log.debug(`${peer}: ${error.message}`);
    client.destroy();
  };
  client.on('data', onHandshakeData);
  client.once('end', onEarlyEnd);
  client.on('error', onEarlyError);
}
