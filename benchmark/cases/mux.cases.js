// Mux.Cool (docs/notes/mux.md): the same chains with and without mux, for
// `cipherbench requests --new-connections`, where a connection a request
// is what mux saves: our Shadowsocks aes-128-gcm and VLESS chains, and
// Xray's VLESS client with its mux on and off. Then blinksocks 3.3.0's
// mux: our chain in its format (blinksocks-mux in ss-base's place), and
// blinksocks' own pair with its mux off and on.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const SS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const VLESS = [{ name: 'vless', params: { id: ID } }];
const MUX = { name: 'mux', params: { concurrency: 8 } };

export default [
  SS,
  [...SS, MUX],
  VLESS,
  [...VLESS, MUX],
  { impl: 'xray', protocol: 'vless' },
  { impl: 'xray', protocol: 'vless', mux: true },
  [{ name: 'blinksocks-mux', params: { concurrency: 8 } }, SS[1]],
  { impl: 'blinksocks', presets: SS },
  { impl: 'blinksocks', presets: SS, mux: true },
];
