// @ts-check
import { inputError } from '../errors.js';
import { nearestHint } from '../nearest-name.js';

// The catalogue: every preset's name and the module that defines it, in
// the order `cipherbench presets` lists them. Loaded when asked for, not
// when this module is: a relay process loads the presets its chain names
// (lib/cli/relay-command.js), every other command the whole catalogue
// (index.js). Every module a relay loads
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

/**
 * The presets a caller loaded, which it holds and hands to lib/chain.
 * @typedef {object} Catalogue
 * @property {readonly string[]} names the loaded presets' names, in the catalogue's order
 * @property {(name: unknown) => import('../contracts.js').Preset | undefined} named
 * @property {() => readonly import('../contracts.js').Preset[]} all the loaded presets, in the catalogue's order
 */

// Loads the named presets (the whole catalogue when none are named) into a
// catalogue of their own: two catalogues share nothing but the modules, so
// what one caller loaded never changes what another sees. A name not in
// MODULES is a mistake in what a person wrote, refused naming the nearest.
/** @type {(names?: readonly string[]) => Promise<Catalogue>} */
export async function loadCatalogue(names = PRESET_NAMES) {
  const unknown = names.find((name) => !Object.hasOwn(MODULES, name));
  if (unknown !== undefined)
    throw inputError(
      `unknown preset ${JSON.stringify(unknown)}${nearestHint(unknown, PRESET_NAMES)}; valid: ${PRESET_NAMES.join(', ')}`,
    );
  const wanted = PRESET_NAMES.filter((name) => names.includes(name));
  const modules = await Promise.all(wanted.map((name) => MODULES[name]()));
  // A family's file names each of its presets; any other file is one.
  const presets = Object.freeze(modules.map((module) => ('default' in module ? module.default : module)));
  const byName = new Map(wanted.map((name, i) => [name, presets[i]]));
  return Object.freeze({
    names: Object.freeze(wanted),
    named: (name) => (typeof name === 'string' ? byName.get(name) : undefined),
    all: () => presets,
  });
}
