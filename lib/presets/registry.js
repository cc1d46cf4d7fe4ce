// The catalogue: every preset's name and the module that defines it, in
// the order `cipherbench presets` lists them. Loaded when asked for, not
// when this module is: a relay process plans none before anything imports
// index.js (lib/cli/relay-main.js), and its command loads the presets its
// chain names (lib/cli/relay-command.js). Every module a relay loads
// enlarges the heap each of V8's mark-compacts walks, and a relay carrying
// a stream mark-compacts often (its buffers are external memory): an
// aes-256-gcm relay pair with only its two presets loaded carried 1.06x
// (1.02-1.14) the bitrate it carried with the whole catalogue, on Node.js
// 24 (docs/notes/performance.md, "What a relay loads").
//
// Every preset is a module with the same shape:
//   name, summary,
//   roles: what it is in a chain, any of
//     'address'  carries the target (exactly one per chain, first),
//     'cipher'   encrypts the stream (at most one per chain),
//     'disguise' shapes the wire as another protocol (last only),
//     'transport' carries the whole chain (after every other preset): it
//       has no stages and gives transport(params, { note }) -> {
//       accept(socket), connect(socket) }, the socket the relay server and
//       client then read and write (chain/transport.js); transports stack,
//       the last one in the chain nearest the wire,
//     'mux' carries many client connections over one of the chain's (at
//       most one, after the address and cipher presets, or first as the
//       address preset too: blinksocks-mux, whose one stage names every
//       connection a tunnel): it has no other stages
//       and gives multiplex(params) -> its frame codec and limits, which
//       the relay's mux-client.js and mux-server.js run (chain/mux.js),
//   inside?: [names]: the transports that may carry this one, following it
//     in the chain (ws: ['tls']); a transport without it comes last,
//   params: { key: { required, values?, description?, check?(value) -> message | undefined } },
//   paramsProblems?(params) -> [{ param, message }]: rules between params,
//   placement?(chain, index) -> message | undefined (rules beyond the roles),
//   joinsWrites?: true, or joinsWrites(params) when it depends on them, for
//     a preset that frames what it is given (TLS records, padding frames):
//     it gets each write of the stages before it as one buffer, not piece
//     by piece,
//   authenticated?: true (or authenticated(params) when it depends on them)
//     when the preset detects any change to the bytes it carries (an AEAD,
//     an HMAC a chunk); a chain is authenticated when one of its presets is,
//     and a relay serves an unauthenticated chain beyond loopback only when
//     told to (cli: --allow-unauthenticated),
//   needsLegacyProvider?(params),
//   password?: { problem(params, password) -> message | undefined,
//                generate(params) -> a fresh password it takes }, for a
//     preset whose key is not any password (SIP022's base64 PSK),
//   udp?(params, { password }), for a preset with a UDP form (chain/udp.js):
//     returns { frame } (an address preset: encode(address, payload),
//     decode(datagram)), { packet } (a cipher: seal(plaintext), open(datagram),
//     overhead) or { sessions } (a preset that is the whole form, ss-2022);
//     a chain carries UDP when every preset in it has one,
//   prepare(params, { password }) -> (connection) -> per-connection stages
//     (password: a string, or a Buffer of the bytes given when the key the
//     person typed is not UTF-8; see cli/raw-argument.js)
//     clientEncode / serverDecode / serverEncode / clientDecode (data, push)
//     and optionally decodeEnded(): called when the peer's FIN arrives;
//     throws protocolError when the bytes so far stop inside a record (or
//     lack the protocol's end record), so a cut stream is passed on as a
//     reset, not as a clean end; and encodeEnded(push): called at the
//     local side's FIN, before it is passed on, to push an end record
//     (VMess's empty chunk)
// `connection` gives a stage what it may need beyond its own bytes:
//   target (client) / onTarget(address) (server): the address to carry;
//   divert(address, received) (server): hands the connection, with the
//     bytes this stage received so far, to a server of the chain's
//     params, carried both ways untouched from then on (a disguise's
//     fallback for a handshake not meant for it); the stage reads nothing
//     more of it;
//   reply(data): bytes toward the peer from just past this stage (through the
//     stages nearer the wire), for handshakes that answer or release held data;
//   holding(bytes): a stage that holds back what it was given to encode
//     (a client waiting for the server's handshake) says how much it holds
//     each time that changes, 0 once it has released it: past a bound the
//     relay stops reading the local side until then, so a server slow to
//     answer slows the sender down instead of breaking its connection;
//   salts.add(salt) -> false when the salt was seen before: a decoder refuses
//     the connection then (a replay); an encoder records its own salts so a
//     reflected stream is refused too;
//   layers: one object per connection that every stage of it shares, where a
//     stage publishes what the stages before it may read (ss-stream-cipher
//     publishes its key and the client's IV as layers.streamCipher, which
//     ShadowsocksR's protocols authenticate their handshake with).
// A new preset is a new file listed here; the relay and runner never change.
const named = (exportName) => (module) => module[exportName];
const MODULES = {
  'ss-base': () => import('./ss-base.js'),
  'base-auth': () => import('./base-auth.js'),
  'v2ray-vmess': () => import('./v2ray-vmess.js'),
  'ss-2022': () => import('./ss-2022/ss-2022.js'),
  trojan: () => import('./trojan.js'),
  vless: () => import('./vless.js'),
  'ss-stream-cipher': () => import('./ss-stream-cipher.js'),
  'ss-aead-cipher': () => import('./ss-aead-cipher.js'),
  'aead-random-cipher': () => import('./aead-random-cipher.js'),
  'ssr-auth-aes128-md5': () => import('./ssr/auth-aes128.js').then(named('authAes128Md5')),
  'ssr-auth-aes128-sha1': () => import('./ssr/auth-aes128.js').then(named('authAes128Sha1')),
  'ssr-auth-chain-a': () => import('./ssr/auth-chain.js').then(named('authChainA')),
  'ssr-auth-chain-b': () => import('./ssr/auth-chain.js').then(named('authChainB')),
  'obfs-random-padding': () => import('./obfs/random-padding.js'),
  'obfs-http': () => import('./obfs/http.js'),
  'obfs-tls1.2-ticket': () => import('./obfs/tls1.2-ticket.js'),
  'simple-obfs': () => import('./simple-obfs.js'),
  mux: () => import('./mux.js'),
  'blinksocks-mux': () => import('./blinksocks-mux.js'),
  ws: () => import('./ws.js'),
  httpupgrade: () => import('./httpupgrade.js'),
  grpc: () => import('./grpc.js'),
  h2: () => import('./h2.js'),
  tls: () => import('./tls.js'),
};

export const PRESET_NAMES = Object.freeze(Object.keys(MODULES));

const loaded = new Map();
let planned = PRESET_NAMES;

// The presets index.js loads when it is first imported: all of them,
// unless a relay process planned others first.
export function planPresets(names) {
  planned = names;
}
export const plannedPresets = () => planned;

// Loads the named presets (the whole catalogue by default) that are not
// loaded yet; unknown names are left to validate.js to report.
export async function loadPresets(names = PRESET_NAMES) {
  const wanted = names.filter((name) => Object.hasOwn(MODULES, name) && !loaded.has(name));
  const modules = await Promise.all(wanted.map((name) => MODULES[name]()));
  wanted.forEach((name, i) => loaded.set(name, modules[i].default ?? modules[i]));
}

export const presetNamed = (name) => (typeof name === 'string' ? loaded.get(name) : undefined);

// The loaded presets, in the catalogue's order.
export const loadedPresets = () => PRESET_NAMES.filter((name) => loaded.has(name)).map((name) => loaded.get(name));
