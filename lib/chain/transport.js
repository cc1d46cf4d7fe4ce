// What carries a chain's bytes between the relays: the plain TCP socket, or
// what the chain's transport presets wrap it in. They stack: the last in
// the chain is nearest the wire, so [vless, ws, tls] is TLS over TCP and
// WebSocket inside TLS. accept(socket) on the relay server and
// connect(socket) on the relay client return the socket the relay reads
// and writes; `note(text)` hears what a connection negotiated, once per
// different text, every layer's in one line, outermost first ("ws
// /cipherbench over TLSv1.3 ...").
const TCP = Object.freeze({ accept: (socket) => socket, connect: (socket) => socket });

const transportEntries = (catalogue, chain) => chain.filter((candidate) => catalogue.named(candidate.name)?.transport);

// The chain's transports as a label ("ws + tls"), or undefined for plain TCP.
export function chainTransport(catalogue, chain) {
  const names = transportEntries(catalogue, chain).map((entry) => entry.name);
  return names.length > 0 ? names.join(' + ') : undefined;
}

export function prepareTransport(catalogue, chain, { note = () => {} } = {}) {
  const entries = transportEntries(catalogue, chain);
  if (entries.length === 0) return TCP;
  const said = new Set();
  const heard = entries.map(() => undefined);
  const noteLayer = (index) => (text) => {
    heard[index] = text;
    if (heard.includes(undefined)) return;
    const line = heard.join(' over ');
    if (said.has(line)) return;
    said.add(line);
    note(line);
  };
  const layers = entries.map((entry, i) =>
    catalogue.named(entry.name).transport(entry.params ?? {}, { note: noteLayer(i) }),
  );
  // Nearest the wire first: the last in the chain wraps the TCP socket.
  const wireFirst = [...layers].reverse();
  return {
    accept: (socket) => wireFirst.reduce((under, layer) => layer.accept(under), socket),
    connect: (socket) => wireFirst.reduce((under, layer) => layer.connect(under), socket),
  };
}
