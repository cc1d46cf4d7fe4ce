// blinksocks v3.3.0's own benchmark (its benchmark/cases.js), case by case
// in its order, each chain followed by the same chain run through blinksocks
// 3.3.0 itself, so every row has its reference beside it. blinksocks ran
// them with iperf3 -P 20 -t 3 through its tunnel client and server; run
//   node bin/cipherbench.js run benchmark/cases/blinksocks.cases.js --parallel 20
// (docs/blinksocks.md). blinksocks rows need blinksocks@3.3.0 resolvable
// (CIPHERBENCH_BLINKSOCKS=folder) and are skipped with that hint otherwise.
//
// The chains are blinksocks' 0 to 32 in its order (the comment on each gives
// blinksocks' number), so case N here is blinksocks' case N / 2.
const ssBase = { name: 'ss-base' };
const baseAuth = { name: 'base-auth' };
const stream = (method) => ({ name: 'ss-stream-cipher', params: { method } });
const aead = (method) => ({ name: 'ss-aead-cipher', params: { method } });
const randomAead = (method) => ({ name: 'aead-random-cipher', params: { method } });
const tls = { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } };
const padding = { name: 'obfs-random-padding' };
const ssr = (name) => ({ name });
// blinksocks' own benchmark used this id.
const vmess = (security) => ({ name: 'v2ray-vmess', params: { id: 'a3482e88-686a-4a58-8126-99c9df64b7bf', security } });

const CHAINS = [
  /* 0 */ [ssBase, stream('aes-256-ctr')],
  /* 1 */ [ssBase, stream('aes-256-cfb')],
  /* 2 */ [ssBase, stream('rc4-md5')],
  /* 3 */ [ssBase, stream('camellia-256-cfb')],
  /* 4 */ [ssBase, stream('chacha20-ietf')],
  /* 5 */ [ssBase, aead('aes-256-gcm')],
  /* 6 */ [ssBase, aead('chacha20-poly1305')],
  /* 7 */ [ssBase, aead('chacha20-ietf-poly1305')],
  /* 8 */ [ssBase, aead('xchacha20-ietf-poly1305')],
  /* 9 */ [ssBase, stream('aes-256-ctr'), tls],
  /* 10 */ [ssBase, padding, stream('aes-256-ctr')],
  /* 11 */ [ssBase, aead('aes-256-gcm'), tls],
  /* 12 */ [ssBase, padding, aead('aes-256-gcm')],
  /* 13 */ [ssBase, ssr('ssr-auth-aes128-md5'), stream('aes-256-ctr')],
  /* 14 */ [ssBase, ssr('ssr-auth-aes128-sha1'), stream('aes-256-ctr')],
  /* 15 */ [ssBase, ssr('ssr-auth-chain-a'), stream('none')],
  /* 16 */ [ssBase, ssr('ssr-auth-chain-b'), stream('none')],
  /* 17 */ [ssBase, ssr('ssr-auth-aes128-sha1'), stream('aes-256-ctr'), tls],
  /* 18 */ [ssBase, ssr('ssr-auth-chain-a'), stream('none'), tls],
  /* 19 */ [vmess('none')],
  /* 20 */ [vmess('aes-128-gcm')],
  /* 21 */ [vmess('chacha20-poly1305')],
  /* 22 */ [vmess('aes-128-gcm'), tls],
  /* 23 */ [baseAuth, stream('aes-256-ctr')],
  /* 24 */ [baseAuth, aead('aes-256-gcm')],
  /* 25 */ [baseAuth, randomAead('aes-256-gcm')],
  /* 26 */ [ssBase, randomAead('aes-256-gcm')],
  /* 27 */ [baseAuth, stream('aes-256-ctr'), tls],
  /* 28 */ [baseAuth, padding, stream('aes-256-ctr')],
  /* 29 */ [baseAuth, aead('aes-256-gcm'), tls],
  /* 30 */ [baseAuth, padding, aead('aes-256-gcm')],
  /* 31 */ [baseAuth, randomAead('aes-256-gcm'), tls],
  /* 32 */ [ssBase, randomAead('aes-256-gcm'), tls],
];

export default CHAINS.flatMap((presets) => [presets, { impl: 'blinksocks', presets }]);
