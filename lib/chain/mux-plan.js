import { presetNamed } from '../presets/index.js';

// The chain's multiplexing (a preset with `multiplex`, presets/mux.js), or
// null when each client connection has a connection of the chain to itself.
export function prepareMux(chain) {
  const entry = chain.find((candidate) => presetNamed(candidate.name)?.multiplex);
  return entry ? presetNamed(entry.name).multiplex(entry.params ?? {}) : null;
}

// Whether the chain's multiplexing carries UDP sessions (Mux.Cool's network
// 2; blinksocks' mux carries none).
export const muxCarriesUdp = (chain) => prepareMux(chain)?.udpNetwork !== undefined;
