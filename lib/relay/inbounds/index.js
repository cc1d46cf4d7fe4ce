import { httpInbound } from './http-proxy.js';
import { socks5Inbound } from './socks5.js';
import { tunnelInbound } from './tunnel.js';

// How a relay client learns where each connection goes (`relay client
// --inbound`): each kind is a function of the client's parts (dial, open,
// splice, queues, log, and forward or auth) that returns the handler of
// one accepted connection.
export const INBOUNDS = Object.freeze({
  tunnel: tunnelInbound,
  socks5: socks5Inbound,
  http: httpInbound,
});

export const INBOUND_KINDS = Object.keys(INBOUNDS);
