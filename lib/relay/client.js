import net from 'node:net';
import { prepareChain } from '../chain/pipeline.js';
import { prepareTransport } from '../chain/transport.js';
import { bridge } from './bridge.js';
import { createSocketSet, listen as listenOn } from './listener.js';
import { CLIENT_FILTER, createSaltFilter } from './salt-filter.js';
import { connectOptions, SERVER_SOCKET_OPTIONS } from './socket-options.js';
import { createWriteQueues } from './write-queues.js';

// The relay client: every accepted connection is carried to the relay server
// through the preset chain, addressed to the fixed `forward` target (a
// tunnel, like ss-tunnel), so iperf3 needs no SOCKS support. Its salt filter
// refuses a server stream that repeats one seen before (a replayed answer).
export function startRelayClient({ listen, server, forward, password, presets, log }) {
  const createPipeline = prepareChain(presets, { password, salts: createSaltFilter(CLIENT_FILTER) });
  const transport = prepareTransport(presets, { note: (text) => log.info(`transport: ${text}`) });
  const sockets = createSocketSet();
  const queues = createWriteQueues();

  const listener = net.createServer(SERVER_SOCKET_OPTIONS, (local) => {
    sockets.add(local);
    const upstream = transport.connect(sockets.add(net.connect(connectOptions(server))));
    const pipeline = createPipeline('client', { target: forward });
    const encode = pipeline.encoder((data) => upstream.write(data));
    bridge(local, upstream, {
      aToB: encode,
      aToBHold: pipeline,
      bToA: pipeline.decoder((data) => local.write(data)),
      aEnded: pipeline.encodeEnded,
      bEnded: pipeline.decodeEnded,
      log,
      label: `${local.remoteAddress}:${local.remotePort}`,
      queues,
    });
    // The address header goes out at once, so protocols where the server
    // speaks first work, and the relay server can connect early.
    encode(Buffer.alloc(0));
  });

  return listenOn(listener, listen, sockets, log);
}
