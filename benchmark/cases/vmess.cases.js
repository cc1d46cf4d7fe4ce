// The VMess cases of issue 15: our v2ray-vmess relay pair beside V2Ray 4.34
// (Go, both ends) and blinksocks 3.3.0 (both ends) for each security. Run
// with
//   CIPHERBENCH_BLINKSOCKS=.ci/peers node bin/cipherbench.js run \
//     benchmark/cases/vmess.cases.js --repeat 3
// Our chain and V2Ray use alterId 0 (the AEAD header, and GlobalPadding with
// the AEAD securities); blinksocks has only the legacy header and no padding.
// The header costs once a connection; padding at most 63 bytes a chunk.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const SECURITIES = ['aes-128-gcm', 'chacha20-poly1305', 'none'];
const chain = (security) => [{ name: 'v2ray-vmess', params: { id: ID, security } }];

export default SECURITIES.flatMap((security) => [
  chain(security),
  { impl: 'v2ray', security },
  { impl: 'blinksocks', presets: chain(security), label: `blinksocks vmess ${security}` },
]);
