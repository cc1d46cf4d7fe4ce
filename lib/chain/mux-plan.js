// The chain's multiplexing (a preset with `multiplex`, presets/mux.js), or
// null when each client connection has a connection of the chain to itself.
// Every lib/chain function takes the catalogue its caller loaded
// (presets/registry.js) first.
export function prepareMux(catalogue, chain) {
  const entry = chain.find((candidate) => catalogue.named(candidate.name)?.multiplex);
  return entry ? catalogue.named(entry.name).multiplex(entry.params ?? {}) : null;
}

// Whether the chain's multiplexing carries UDP sessions (Mux.Cool's network
// 2; blinksocks' mux carries none).
export const muxCarriesUdp = (catalogue, chain) => prepareMux(catalogue, chain)?.udpNetwork !== undefined;
