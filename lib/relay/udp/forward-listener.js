import { createAssociations } from './associations.js';
import { bindUdp, closeUdp, createUdpSocket, sendDatagram } from './socket.js';

// The local side of a UDP port forward, whichever way its datagrams travel
// on (a socket to the relay server, forward-client.js; sessions in the mux
// tunnels, over-mux.js): a socket on `listen` whose every sender, by
// address and port, gets an association, bounded in count and idle time. A
// full table drops a new sender's datagrams, counted, warned of once.
// `counts` and `failed` (a send that failed) are the caller's to count
// into as well.
export function createForwardListener({ listen, timeoutMs, maxAssociations, log, closeAssociation }) {
  const counts = { datagrams: 0, replies: 0, refused: 0, overCap: 0, sendErrors: 0 };
  const socket = createUdpSocket(listen.host, log);
  const associations = createAssociations({ timeoutMs, maxAssociations, close: closeAssociation });
  const failed = (error) => {
    counts.sendErrors += 1;
    log.debug(`udp: ${error.message}`);
  };
  let warnedFull = false;

  return {
    counts,
    failed,
    // open(reply) makes a new sender's association, where reply(payload)
    // sends what comes back to that sender; send(association, datagram)
    // carries each datagram on. Resolves once the socket listens.
    async start({ open, send }) {
      socket.on('message', (datagram, sender) => {
        counts.datagrams += 1;
        const key = `${sender.address}|${sender.port}`;
        let association = associations.get(key);
        if (!association) {
          if (associations.full) {
            counts.overCap += 1;
            if (!warnedFull) {
              warnedFull = true;
              log.warn(
                `udp: ${maxAssociations} local senders (--udp-max-associations) at once; dropping new ones until some are idle (said once)`,
              );
            }
            return;
          }
          const { address, port } = sender;
          const reply = (payload) => {
            associations.touch(key);
            counts.replies += 1;
            sendDatagram(socket, payload, port, address, failed);
          };
          association = associations.add(key, open(reply));
        }
        send(association, datagram);
      });
      const address = await bindUdp(socket, listen);
      return {
        address,
        stats: () => ({ ...counts, associations: associations.size }),
        close() {
          associations.closeAll();
          return closeUdp(socket);
        },
      };
    },
  };
}
