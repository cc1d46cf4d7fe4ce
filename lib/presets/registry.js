// @ts-check
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
// Every preset is a module whose default export is a Preset
// (lib/contracts.js): its roles, params, stages and the connection its
// stages are given.
// A new preset is a new file listed here; the relay and runner never change.
const named = (exportName) => (module) => module[exportName];
/** @type {Record<string, () => Promise<import('../contracts.js').Preset | { default: import('../contracts.js').Preset }>>} */
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
  // A family's file names each of its presets; any other file is one.
  wanted.forEach((name, i) => loaded.set(name, 'default' in modules[i] ? modules[i].default : modules[i]));
}

/** @type {(name: unknown) => import('../contracts.js').Preset | undefined} */
export const presetNamed = (name) => (typeof name === 'string' ? loaded.get(name) : undefined);

// The loaded presets, in the catalogue's order.
/** @type {() => import('../contracts.js').Preset[]} */
export const loadedPresets = () => PRESET_NAMES.filter((name) => loaded.has(name)).map((name) => loaded.get(name));
