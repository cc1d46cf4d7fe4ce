import {
  BLINKSOCKS_MUX_TARGET,
  createFrameReader,
  encodeFrame,
  NETWORK_TCP,
  STATUS,
} from '../wire/blinksocks-mux-frames.js';
import { checkConcurrency, DEFAULT_CONCURRENCY, MOST_CONCURRENCY, SESSIONS_PER_TUNNEL } from './mux-concurrency.js';

// blinksocks 3.3.0's multiplexing (wire/blinksocks-mux-frames.js), run by the same
// tunnel pool and server as Mux.Cool (relay/mux-client.js, mux-server.js).
// With `mux: true`, blinksocks drops its chain's address preset and puts its
// own `mux` first: `presets: [ss-base, ss-aead-cipher], mux: true` is, on
// the wire, [blinksocks-mux, ss-aead-cipher]. So this preset stands where
// the address preset would: every connection of the chain is a tunnel, and
// each session's frame names its target. Its server stage names the tunnel
// to the relay server at the first bytes the presets after it let through
// (a cipher's first authenticated chunk), so a probe or a replay is held
// and refused as for any chain.
// blinksocks' client puts each connection on one of its tunnels at random,
// however many are open on it: a server of ours allows this many open at
// once on one tunnel (or the chain's concurrency, when higher).
const MOST_OPEN = 128;

function placement(chain, index, presets) {
  const others = chain.flatMap((_, i) => (i === index ? [] : [i]));
  const has = (i, role) => presets[i].roles.includes(role);
  // A mux after it says itself that a chain multiplexes once (presets/mux.js).
  const addresses = others.filter((i) => has(i, 'address'));
  if (index === 0 && addresses.length === 0) return undefined;
  // blinksocks drops every address preset under mux, v2ray-vmess too; a
  // chain multiplexes once.
  const kept = others.filter((i) => !addresses.includes(i) && !has(i, 'mux'));
  const order = ['blinksocks-mux', ...kept.map((i) => chain[i].name)];
  const why = addresses.length
    ? `in the address preset's place (blinksocks drops ${addresses.map((i) => chain[i].name).join(' and ')} under mux: true)`
    : "in the address preset's place, first";
  return `blinksocks-mux carries each session's target, ${why}; in order: ${order.join(', ')}`;
}

export default {
  name: 'blinksocks-mux',
  summary:
    "blinksocks 3.3.0's mux: every connection a tunnel of sessions, each with its target; first, in the address preset's place",
  roles: ['address', 'mux'],
  params: {
    concurrency: {
      required: false,
      description: `sessions our client puts on one connection before it opens another (default ${DEFAULT_CONCURRENCY}), 1 to ${MOST_CONCURRENCY}; a server allows ${MOST_OPEN} open at once on one, or this when higher`,
      check: checkConcurrency,
    },
  },
  placement,
  prepare() {
    return (connection) => {
      let named = false;
      return {
        serverDecode(data, push) {
          if (!named) {
            if (data.length === 0) return;
            named = true;
            connection.onTarget(BLINKSOCKS_MUX_TARGET);
          }
          push(data);
        },
      };
    };
  },
  multiplex: ({ concurrency = DEFAULT_CONCURRENCY }) => ({
    concurrency,
    mostOpen: Math.max(concurrency, MOST_OPEN),
    randomIds: true,
    // Renewed as a Mux.Cool tunnel is; blinksocks' server takes any number.
    sessionsPerTunnel: SESSIONS_PER_TUNNEL,
    target: BLINKSOCKS_MUX_TARGET,
    carries: ({ host, port }) => host === BLINKSOCKS_MUX_TARGET.host && port === BLINKSOCKS_MUX_TARGET.port,
    network: NETWORK_TCP,
    status: STATUS,
    encodeFrame,
    createFrameReader,
  }),
};
