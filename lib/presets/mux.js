import { createFrameReader, encodeFrame, MUX_COOL_TARGET, NETWORK_TCP, NETWORK_UDP, STATUS } from '../wire/mux-cool.js';
import { checkConcurrency, DEFAULT_CONCURRENCY, MOST_CONCURRENCY, SESSIONS_PER_TUNNEL } from './mux-concurrency.js';

// Mux.Cool (V2Ray 4.x, Xray: wire/mux-cool.js): the relay client carries
// many client connections as sessions over few connections of the chain,
// each to the magic target v1.mux.cool, and the relay server demultiplexes
// them to their targets (relay/mux-client.js, relay/mux-server.js). It has
// no stages: the protocol before it carries the frames as its payload.
//
// It comes after the presets that carry the target and encrypt (which then
// carry v1.mux.cool) and before any disguise or transport, which carry the
// tunnel: [vless, mux, tls] reads "VLESS, multiplexed, over TLS".
const BEFORE_ROLES = ['address', 'cipher'];
const AFTER_ROLES = ['disguise', 'transport'];

function placement(chain, index, presets) {
  const roles = presets.map((preset) => preset.roles);
  const before = roles.slice(0, index);
  const after = roles.slice(index + 1).filter((own) => !own.includes('mux'));
  // blinksocks-mux multiplexes too, wherever it stands (its own line says where).
  const otherMux = (own, i) => own.includes('mux') && (i < index || own.includes('address'));
  if (roles.some((own, i) => i !== index && otherMux(own, i))) return 'a second mux: a chain multiplexes once';
  const fits =
    before.length > 0 &&
    before.every((own) => own.some((role) => BEFORE_ROLES.includes(role))) &&
    after.every((own) => own.some((role) => AFTER_ROLES.includes(role)));
  if (fits) return undefined;
  const rank = (own) => (own.includes('mux') ? 1 : own.some((role) => AFTER_ROLES.includes(role)) ? 2 : 0);
  const order = chain
    .map((entry, i) => ({ name: entry.name, rank: rank(roles[i]), i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map(({ name }) => name);
  return `mux multiplexes the connections the protocol carries: it comes after the address and cipher presets, before any disguise or transport; in order: ${order.join(', ')}`;
}

export default {
  name: 'mux',
  summary:
    'Mux.Cool (V2Ray, Xray): many client connections as sessions over few connections of the chain, to v1.mux.cool',
  roles: ['mux'],
  params: {
    concurrency: {
      required: false,
      description: `sessions open at once on one connection (default ${DEFAULT_CONCURRENCY}, as Xray's), 1 to ${MOST_CONCURRENCY}; a server refuses a connection with more`,
      check: checkConcurrency,
    },
  },
  placement,
  prepare() {
    return () => ({});
  },
  multiplex: ({ concurrency = DEFAULT_CONCURRENCY }) => ({
    concurrency,
    sessionsPerTunnel: SESSIONS_PER_TUNNEL,
    target: MUX_COOL_TARGET,
    carries: ({ host }) => host === MUX_COOL_TARGET.host,
    network: NETWORK_TCP,
    udpNetwork: NETWORK_UDP,
    status: STATUS,
    encodeFrame,
    createFrameReader,
  }),
};
