import net from 'node:net';
import { prepareChain } from '../presets/index.js';
import { protocolError } from '../presets/protocol-error.js';
import { bridge } from './bridge.js';
import { formatEndpoint } from './endpoint.js';
import { isLoopbackTarget } from './loopback.js';
import { createSocketSet, listen as listenOn } from './listener.js';

export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

// The relay server: decodes what a relay client (or any Shadowsocks client)
// sends, connects to the target named in the stream's address header, and
// encodes the target's replies back.
export function startRelayServer({ listen, password, presets, allowRemote = false, handshakeTimeoutMs = DEFAULT_HANDSHAKE_TIMEOUT_MS, log }) {
  const createPipeline = prepareChain(presets, { password });
  const sockets = createSocketSet();

  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    sockets.add(client);
    const peer = `${client.remoteAddress}:${client.remotePort}`;
    const target = sockets.add(new net.Socket({ allowHalfOpen: true }));
    let targetKnown = false;

    // A client that never completes its address header is cut off, so a
    // stalled or hostile peer cannot hold a socket forever.
    const handshakeTimer = setTimeout(() => {
      log.debug(`${peer}: no address header within ${handshakeTimeoutMs} ms`);
      connection.tearDown();
    }, handshakeTimeoutMs);

    const pipeline = createPipeline('server', {
      onTarget({ host, port }) {
        if (targetKnown) throw protocolError('second address header');
        if (!allowRemote && !isLoopbackTarget(host)) {
          throw protocolError(`refused target ${formatEndpoint({ host, port })}: not loopback (start with --allow-remote to permit)`);
        }
        targetKnown = true;
        clearTimeout(handshakeTimer);
        target.setNoDelay(true);
        target.connect({ host, port });
      },
    });

    const connection = bridge(client, target, {
      aToB: pipeline.decoder((data) => target.write(data)),
      bToA: pipeline.encoder((data) => client.write(data)),
      log,
      label: peer,
    });
    client.once('close', () => clearTimeout(handshakeTimer));
  });

  return listenOn(server, listen, sockets, log);
}
