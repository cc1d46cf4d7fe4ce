import { prepareChain } from '../../../lib/chain/pipeline.js';
import { CATALOGUE } from '../../../lib/presets/index.js';

// A client and a server pipeline of one chain joined in memory, without
// sockets: what each encoder writes waits on its wire until the test
// delivers it, in pieces of the test's choosing, to the other side's
// decoder. Replies from inside a decoder (a handshake's answer) land on
// the same wires, as they would on the sockets.
// `salts` and `now` go to prepareChain (a salt filter, a clock); sent()
// returns everything the client has put on its wire so far.
export function pipelinePair(
  chain,
  { password = 'pipeline-pair', target = { host: '127.0.0.1', port: 5201 }, salts, now } = {},
) {
  const create = prepareChain(CATALOGUE, chain, { password, salts, now });
  const targets = [];
  const client = create('client', { target });
  const server = create('server', { onTarget: (address) => targets.push(address) });
  const toServer = [];
  const toClient = [];
  const atServer = [];
  const atClient = [];
  const sent = [];
  const clientEncode = client.encoder((data) => {
    toServer.push(Buffer.from(data));
    sent.push(Buffer.from(data));
  });
  const clientDecode = client.decoder((data) => atClient.push(Buffer.from(data)));
  const serverDecode = server.decoder((data) => atServer.push(Buffer.from(data)));
  const serverEncode = server.encoder((data) => toClient.push(Buffer.from(data)));
  const drain = (wire) => Buffer.concat(wire.splice(0));
  return {
    targets,
    clientWrite: clientEncode,
    serverWrite: serverEncode,
    // Everything on both wires, delivered until neither side has more to
    // say, each wire's bytes cut where `cut(bytes)` says (default: not at all).
    flush(cut = (bytes) => [bytes]) {
      while (toServer.length > 0 || toClient.length > 0) {
        if (toServer.length > 0) for (const piece of cut(drain(toServer))) serverDecode(piece);
        if (toClient.length > 0) for (const piece of cut(drain(toClient))) clientDecode(piece);
      }
    },
    sent: () => Buffer.concat(sent),
    // The server's side of a FIN from the client: throws when the bytes so
    // far stop inside a record (decodeEnded in the preset contract).
    serverEnded: () => server.decodeEnded(),
    receivedByServer: () => drain(atServer),
    receivedByClient: () => drain(atClient),
  };
}
