// blinksocks 3.3.0's ShadowsocksR cases (13-16 of its benchmark; 17 and 18
// add obfs-tls1.2-ticket), each carried by our relays, by blinksocks and by
// the Python ShadowsocksR relay (the protocol's reference, and slow):
//   node bin/cipherbench.js run benchmark/cases/ssr.cases.js --repeat 3
const SSR = [
  ['ssr-auth-aes128-md5', 'auth_aes128_md5', 'aes-256-ctr'],
  ['ssr-auth-aes128-sha1', 'auth_aes128_sha1', 'aes-256-ctr'],
  ['ssr-auth-chain-a', 'auth_chain_a', 'none'],
  ['ssr-auth-chain-b', 'auth_chain_b', 'none'],
];
const chain = (preset, method) => [
  { name: 'ss-base' },
  { name: preset },
  { name: 'ss-stream-cipher', params: { method } },
];

export default [
  ...SSR.map(([preset, , method]) => chain(preset, method)),
  ...SSR.map(([preset, , method]) => ({ impl: 'blinksocks', presets: chain(preset, method) })),
  ...SSR.map(([, protocol, method]) => ({ impl: 'ssr', protocol, method })),
];
