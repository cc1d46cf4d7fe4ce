import net from 'node:net';
import { prepareChain } from '../presets/index.js';
import { isProtocolError, protocolError } from '../presets/protocol-error.js';
import { bridge } from './bridge.js';
import { formatEndpoint } from './endpoint.js';
import { isLoopbackTarget } from './loopback.js';
import { createSocketSet, listen as listenOn } from './listener.js';
import { connectOptions, SERVER_SOCKET_OPTIONS } from './socket-options.js';

export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

// The relay server: decodes what a relay client (or any Shadowsocks client)
// sends, connects to the target named in the stream's address header, and
// encodes the target's replies back.
export function startRelayServer({ listen, password, presets, allowRemote = false, handshakeTimeoutMs = DEFAULT_HANDSHAKE_TIMEOUT_MS, log }) {
  const createPipeline = prepareChain(presets, { password });
  const sockets = createSocketSet();

  const server = net.createServer(SERVER_SOCKET_OPTIONS, (client) => {
    sockets.add(client);
    const peer = `${client.remoteAddress}:${client.remotePort}`;
    let target = null;
    const refuse = (error) => {
      log.debug(`${peer}: ${error.message}`);
      client.destroy();
      target?.destroy();
    };

    // A client that never completes its address header is cut off, so a
    // stalled or hostile peer cannot hold a socket forever.
    const handshakeTimer = setTimeout(() => refuse(new Error(`no address header within ${handshakeTimeoutMs} ms`)), handshakeTimeoutMs);
    client.once('close', () => clearTimeout(handshakeTimer));

    // Until the header names a target, the client has a handler of its own
    // and no target socket exists: hostile connections, most of which never
    // get that far, cost one socket, not two.
    const pipeline = createPipeline('server', {
      onTarget({ host, port }) {
        if (target) throw protocolError('second address header');
        if (!allowRemote && !isLoopbackTarget(host)) {
          throw protocolError(`refused target ${formatEndpoint({ host, port })}: not loopback (start with --allow-remote to permit)`);
        }
        clearTimeout(handshakeTimer);
        target = sockets.add(net.connect(connectOptions({ host, port })));
        client.off('data', onHandshakeData);
        client.off('end', onEarlyEnd);
        client.off('error', refuse);
        bridge(client, target, { aToB: decode, bToA: encode, log, label: peer });
      },
    });
    const decode = pipeline.decoder((data) => target.write(data));
    const encode = pipeline.encoder((data) => client.write(data));
    const onHandshakeData = (data) => {
      try {
        decode(data);
      } catch (error) {
        if (!isProtocolError(error)) throw error;
        refuse(error);
      }
    };
    const onEarlyEnd = () => refuse(new Error('closed before naming a target'));
    client.on('data', onHandshakeData);
    client.once('end', onEarlyEnd);
    client.on('error', refuse);
  });

  return listenOn(server, listen, sockets, log);
}
