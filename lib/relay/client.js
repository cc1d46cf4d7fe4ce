import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { prepareMux } from '../chain/mux-plan.js';
import { prepareChain } from '../chain/pipeline.js';
import { prepareTransport } from '../chain/transport.js';
import { bridge } from './bridge.js';
import { peerLabel } from './endpoint.js';
import { INBOUNDS } from './inbounds/index.js';
import { createSocketSet, listen as listenOn } from './listener.js';
import { createMuxPool } from './mux-client.js';
import { CLIENT_FILTER, createSaltFilter } from './salt-filter.js';
import { connectCorked, SERVER_SOCKET_OPTIONS } from './socket-options.js';
import { createSocks5Associate } from './udp/socks5-associate.js';
import { createWriteQueues } from './write-queues.js';

const NOTHING = Buffer.alloc(0);

// The relay client: every accepted connection is carried to the relay server
// through the preset chain. Which target each one goes to is the inbound's
// to say (inbounds/): `tunnel` (the default) sends all of them to the fixed
// `forward` target, like ss-tunnel, so iperf3 needs no SOCKS support;
// `socks5` and `http` ask the application, as ss-local and a browser's
// proxy setting do. Its salt filter refuses a server stream that repeats
// one seen before (a replayed answer). With `udpAssociate` ({ timeoutMs,
// maxAssociations }), the socks5 inbound serves UDP ASSOCIATE too.
export async function startRelayClient({
  listen,
  server,
  forward,
  password,
  catalogue,
  presets,
  log,
  inbound = 'tunnel',
  inboundAuth = null,
  udpAssociate = null,
}) {
  const createPipeline = prepareChain(catalogue, presets, { password, salts: createSaltFilter(CLIENT_FILTER) });
  const transport = prepareTransport(catalogue, presets, { note: (text) => log.info(`transport: ${text}`) });
  const sockets = createSocketSet();
  const queues = createWriteQueues();

  // A connection to the relay server (through the chain's transport, TLS),
  // not yet carrying anything.
  const dialServer = () => transport.connect(sockets.add(connectCorked(server)));
  // With a multiplexing chain, a connection to the server is a session in
  // a tunnel the pool shares (mux-client.js), and the pool dials.
  const mux = prepareMux(catalogue, presets);
  const pool = mux && createMuxPool({ mux, dial: dialServer, createPipeline, log });
  const dial = pool ? pool.session : dialServer;
  // Where UDP rides the tunnels too (Mux.Cool's UDP sessions).
  const udpPool = pool && mux.udpNetwork !== undefined ? pool : null;

  // The chain's two directions for one stream to `target` over `upstream`:
  // what the inbound writes goes out encoded; what comes back is decoded
  // into `reply`; `hold` says what the encoder holds back (bridge.js).
  const open = (upstream, target, reply) => {
    if (pool) return upstream.open(target, reply);
    const pipeline = createPipeline('client', { target });
    return {
      encode: pipeline.encoder((data) => upstream.write(data)),
      decode: pipeline.decoder(reply),
      encodeEnded: pipeline.encodeEnded,
      decodeEnded: pipeline.decodeEnded,
      hold: pipeline,
    };
  };

  // Carries `local` to `target` both ways until either side ends, starting
  // with the bytes the inbound read past its handshake.
  const splice = (local, upstream, target, first = NOTHING) => {
    const stream = open(upstream, target, (data) => local.write(data));
    bridge(local, upstream, {
      aToB: stream.encode,
      aToBHold: stream.hold,
      bToA: stream.decode,
      aEnded: stream.encodeEnded,
      bEnded: stream.decodeEnded,
      log,
      label: peerLabel(local),
      queues,
    });
    // The address header goes out at once, so protocols where the server
    // speaks first work, and the relay server can connect early.
    stream.encode(first);
  };

  // The server's name is looked up once, at start, as for the UDP port forward.
  const associate =
    udpAssociate &&
    createSocks5Associate({
      ...udpAssociate,
      server,
      serverAddress: (await lookup(server.host)).address,
      password,
      catalogue,
      presets,
      log,
      muxPool: udpPool,
    });
  const accept = INBOUNDS[inbound]({ forward, auth: inboundAuth, dial, open, splice, associate, queues, log });
  const listener = net.createServer(SERVER_SOCKET_OPTIONS, (local) => {
    sockets.add(local);
    accept(local);
  });

  const relay = await listenOn(listener, listen, sockets, log);
  if (!associate && !pool) return relay;
  return {
    ...relay,
    // The UDP port forward beside it rides the same tunnels (udp/over-mux.js).
    muxPool: udpPool,
    stats: () => ({ ...(associate ? { udp: associate.stats() } : {}), ...(pool ? { mux: pool.stats() } : {}) }),
    close() {
      associate?.close();
      if (pool) log.info(`relay client: ${pool.summary()}`);
      return relay.close();
    },
  };
}
