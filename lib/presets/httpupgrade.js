import {
  checkTarget,
  checkUpgraded,
  formatHead,
  parseRequestLine,
  UPGRADE_PARAMS,
  upgradeTransport,
  upgradingCodec,
} from '../wire/http-upgrade.js';

// Xray's and sing-box's `httpupgrade` transport: the client's HTTP/1.1 GET
// with Connection: Upgrade and Upgrade: websocket, the server's 101, and
// from then on the connection's bytes as they are, with no frames. A web
// server or CDN in front sees a WebSocket upgrade; the bytes cost nothing
// more than TCP's.
//
// The client sends nothing after its request until the 101 has come: both
// Xray's and sing-box's servers read the request through a buffer they
// then drop, so bytes that arrive with it would be lost. It sends no
// Sec-WebSocket-Key either: sing-box's server refuses a request that has
// one, as a real WebSocket client's. A FIN is a FIN, as over TCP.
// The connection once upgraded: its bytes as they are, both ways.
const bareConnection = (io) => ({
  read: (chunk) => io.deliver(chunk),
  frame: (buffers) => buffers,
  close: () => [],
  ended() {},
});

function serverCodec({ path, host }, note) {
  return upgradingCodec({
    unfinished: 'httpupgrade: the connection ended inside its upgrade request',
    start() {},
    upgrade({ startLine, headers }, io) {
      checkTarget(parseRequestLine(startLine), headers, { path, host }, 'httpupgrade');
      note(`httpupgrade ${path}`);
      return {
        // Xray's client compares the whole status line.
        answer: [
          formatHead('HTTP/1.1 101 Switching Protocols', [
            ['Connection', 'Upgrade'],
            ['Upgrade', 'websocket'],
          ]),
        ],
        upgraded: bareConnection(io),
      };
    },
  });
}

export const upgradeRequest = ({ path, host }) =>
  formatHead(`GET ${path} HTTP/1.1`, [
    ['Host', host],
    ['Connection', 'Upgrade'],
    ['Upgrade', 'websocket'],
  ]);

function clientCodec({ path, host }, note) {
  return upgradingCodec({
    unfinished: 'httpupgrade: the server closed before answering the upgrade',
    start(io) {
      io.send([upgradeRequest({ path, host })]);
    },
    upgrade(head, io) {
      checkUpgraded(head, path, 'httpupgrade');
      note(`httpupgrade ${path}, Host ${host}`);
      return { answer: [], upgraded: bareConnection(io) };
    },
  });
}

export default {
  name: 'httpupgrade',
  summary:
    "Xray's and sing-box's httpupgrade transport: an HTTP/1.1 upgrade, then the bytes as they are; tls may carry it",
  roles: ['transport'],
  inside: ['tls'],
  params: UPGRADE_PARAMS,
  prepare() {
    return () => ({});
  },
  transport: upgradeTransport(serverCodec, clientCodec),
};
