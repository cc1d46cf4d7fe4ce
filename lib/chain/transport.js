import { presetNamed } from '../presets/index.js';

// What carries a chain's bytes between the relays: the plain TCP socket, or
// what the chain's transport preset (the last, as tls is) wraps it in.
// accept(socket) on the relay server and connect(socket) on the relay
// client return the socket the relay reads and writes; `note(text)` hears
// what a connection negotiated, once per different text.
const TCP = Object.freeze({ accept: (socket) => socket, connect: (socket) => socket });

const transportEntry = (chain) => chain.find((candidate) => presetNamed(candidate.name)?.transport);

// The name of the chain's transport preset, or undefined for plain TCP.
export const chainTransport = (chain) => transportEntry(chain)?.name;

export function prepareTransport(chain, { note = () => {} } = {}) {
  const entry = transportEntry(chain);
  if (!entry) return TCP;
  const said = new Set();
  const noteOnce = (text) => {
    if (said.has(text)) return;
    said.add(text);
    note(text);
  };
  return presetNamed(entry.name).transport(entry.params ?? {}, { note: noteOnce });
}
