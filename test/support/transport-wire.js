import { acceptKey, createFrameReader, encodeFrame, upgradeRequest as wsRequest } from '../../lib/presets/ws.js';
import { upgradeRequest as httpupgradeRequest } from '../../lib/presets/httpupgrade.js';
import { formatHead } from '../../lib/wire/http-upgrade.js';

// A chain's client stream as its ws or httpupgrade transport carries it on
// the wire, made with the transports' own framing, so that a hostile
// stream the suites build for the chain inside arrives wrong in that one
// way only, through a valid upgrade. Chains over tls are reached through
// a real relay client instead.
const PATH = '/cipherbench';
const HOST = 'localhost';
// RFC 6455 1.3's sample key: a fixed key makes the server's 101 fixed too.
const WS_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

// The chain's transport entry ({ name, params }), or undefined.
const transportEntry = (presets) => presets.find(({ name }) => ['ws', 'httpupgrade'].includes(name));

// The upgrade request a client of the chain sends first.
export function upgradeHead(presets) {
  const { name, params = {} } = transportEntry(presets);
  const target = { path: params.path ?? PATH, host: params.host ?? HOST };
  return name === 'ws' ? wsRequest({ ...target, key: WS_KEY }) : httpupgradeRequest(target);
}

// The 101 the server answers upgradeHead with, byte for byte.
export function upgradeAnswer(presets) {
  return transportEntry(presets).name === 'ws'
    ? formatHead('HTTP/1.1 101 Switching Protocols', [
        ['Upgrade', 'websocket'],
        ['Connection', 'Upgrade'],
        ['Sec-WebSocket-Accept', acceptKey(WS_KEY)],
      ])
    : formatHead('HTTP/1.1 101 Switching Protocols', [
        ['Connection', 'Upgrade'],
        ['Upgrade', 'websocket'],
      ]);
}

// The upgrade, then `stream` in one masked binary frame (ws) or as it is
// (httpupgrade).
export function onTheWire(presets, stream) {
  const framed = transportEntry(presets).name === 'ws' ? encodeFrame([stream], { masked: true }) : [stream];
  return Buffer.concat([upgradeHead(presets), ...framed]);
}

// What the server sent inside its transport: `received` without its 101
// head, and for ws without the frames' headers (a server's are unmasked).
export function insideAnswer(presets, received) {
  const end = received.indexOf('\r\n\r\n');
  if (end === -1) throw new Error('no upgrade answer in what the server sent');
  const rest = received.subarray(end + 4);
  if (transportEntry(presets).name !== 'ws') return rest;
  const data = [];
  createFrameReader({ masked: false, onData: (piece) => data.push(Buffer.from(piece)), onControl() {} }).read(
    Buffer.from(rest),
  );
  return Buffer.concat(data);
}
