import { prepareChain } from '../../lib/presets/index.js';

// A client and a server pipeline of one chain joined in memory, without
// sockets: what each encoder writes waits on its wire until the test
// delivers it, in pieces of the test's choosing, to the other side's
// decoder. Replies from inside a decoder (a handshake's answer) land on
// the same wires, as they would on the sockets.
export function pipelinePair(chain, { password = 'pipeline-pair', target = { host: '127.0.0.1', port: 5201 } } = {}) {
  const create = prepareChain(chain, { password });
  const targets = [];
  const client = create('client', { target });
  const server = create('server', { onTarget: (address) => targets.push(address) });
  const toServer = [];
  const toClient = [];
  const atServer = [];
  const atClient = [];
  const clientEncode = client.encoder((data) => toServer.push(Buffer.from(data)));
  const clientDecode = client.decoder((data) => atClient.push(Buffer.from(data)));
  const serverDecode = server.decoder((data) => atServer.push(Buffer.from(data)));
  const serverEncode = server.encoder((data) => toClient.push(Buffer.from(data)));
  const drain = (wire) => Buffer.concat(wire.splice(0));
  return {
    targets,
    clientWrite: clientEncode,
    serverWrite: serverEncode,
    // What is on each wire now, taken off it.
    takeToServer: () => drain(toServer),
    takeToClient: () => drain(toClient),
    deliverToServer: (data) => serverDecode(data),
    deliverToClient: (data) => clientDecode(data),
    // Everything on both wires, delivered until neither side has more to say.
    flush() {
      while (toServer.length > 0 || toClient.length > 0) {
        if (toServer.length > 0) serverDecode(drain(toServer));
        if (toClient.length > 0) clientDecode(drain(toClient));
      }
    },
    receivedByServer: () => drain(atServer),
    receivedByClient: () => drain(atClient),
  };
}
