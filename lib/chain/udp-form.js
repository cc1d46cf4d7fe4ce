import { muxCarriesUdp } from './mux-plan.js';

// A chain's UDP form, when every preset in it has one (presets/registry.js,
// `udp`): the address preset frames each datagram, the cipher presets seal
// it in chain order and open it in reverse, or one preset (ss-2022) is the
// whole form with sessions of its own. A multiplexing chain carries UDP as
// sessions in its tunnels (Mux.Cool's network 2), whatever its presets.
export const chainHasUdp = (catalogue, chain) =>
  muxCarriesUdp(catalogue, chain) || chain.every((entry) => typeof catalogue.named(entry.name)?.udp === 'function');

// 'obfs-http carries TCP only': what a message refusing --udp says of a chain.
export function withoutUdpPhrase(catalogue, chain) {
  const names = [
    ...new Set(
      chain.filter((entry) => typeof catalogue.named(entry.name)?.udp !== 'function').map((entry) => entry.name),
    ),
  ];
  return `${names.join(', ')} ${names.length === 1 ? 'carries' : 'carry'} TCP only`;
}

// Built once per process. Returns
//   overhead: the most bytes a datagram grows by on the wire,
//   client(): one association's { encode(target, payload) -> packet, decode(packet) -> { address, payload } },
//   server(): the server's { decode(packet, current) -> { session, address, payload }, hold(session),
//     release(session) }, session.encode(source, payload) -> packet for its replies.
// decode throws protocolError for anything that is not a datagram of this chain.
// A multiplexing chain's datagrams ride its tunnels (relay/udp/over-mux.js):
// its form is only { overhead: 0 }, nothing added to a datagram on the wire.
export function prepareUdpChain(catalogue, chain, { password }) {
  if (muxCarriesUdp(catalogue, chain)) return { overhead: 0 };
  const forms = chain.map((entry) => catalogue.named(entry.name).udp(entry.params ?? {}, { password }));
  const whole = forms.find((form) => form.sessions);
  if (whole) return whole.sessions;
  const { frame } = forms.find((form) => form.frame);
  const packets = forms.filter((form) => form.packet).map((form) => form.packet);
  const seal = (plaintext) => packets.reduce((data, packet) => packet.seal(data), plaintext);
  const open = (datagram) => packets.reduceRight((data, packet) => packet.open(data), datagram);
  // Without sessions every association of the server answers alike.
  const answer = { encode: (source, payload) => seal(frame.encode(source, payload)) };
  return {
    overhead: packets.reduce((sum, packet) => sum + packet.overhead, frame.overhead),
    client: () => ({
      encode: (target, payload) => seal(frame.encode(target, payload)),
      decode: (datagram) => frame.decode(open(datagram)),
    }),
    server: () => ({
      decode: (datagram) => ({ session: answer, ...frame.decode(open(datagram)) }),
      hold() {},
      release() {},
    }),
  };
}
