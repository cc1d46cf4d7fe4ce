// One protocol over each transport, ours beside Xray's and sing-box's
// (issue 51): Shadowsocks aes-256-gcm and VLESS over plain TCP, ws,
// httpupgrade, grpc, tls, ws inside tls (wss) and grpc inside tls; VLESS
// over h2 inside tls beside sing-box's, VMess beside V2Ray 4.34's. Run with
//   node bin/cipherbench.js run benchmark/cases/transports.cases.js --repeat 5 \
//     --relative-to 'xray shadowsocks aes-256-gcm'
// xray and sing-box rows need both on PATH (docs/xray-sing-box.md);
// blinksocks rows, Shadowsocks over its tcp://, ws:// and wss:// services,
// need blinksocks 3 (docs/blinksocks.md).
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const SS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const VLESS = { name: 'vless', params: { id: ID } };
const VMESS = { name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } };
const TRANSPORTS = [[], [{ name: 'ws' }], [{ name: 'httpupgrade' }], [{ name: 'grpc' }]];
// HTTP/2 inside TLS is agreed by ALPN.
const TLS_H2 = { name: 'tls', params: { alpn: 'h2' } };
const SECURED = [[{ name: 'tls' }], [{ name: 'ws' }, { name: 'tls' }], [{ name: 'grpc' }, TLS_H2]];
const peerFields = (transports) => {
  const names = transports.map(({ name }) => name);
  return {
    ...(names.includes('tls') ? { tls: true } : {}),
    ...(names.some((name) => name !== 'tls') ? { transport: names.find((name) => name !== 'tls') } : {}),
  };
};

export default [
  ...TRANSPORTS.flatMap((transports) => [
    [...SS, ...transports],
    { impl: 'xray', protocol: 'shadowsocks', method: 'aes-256-gcm', ...peerFields(transports) },
  ]),
  // blinksocks has no httpupgrade; its wss is ws inside tls.
  { impl: 'blinksocks', presets: SS },
  { impl: 'blinksocks', presets: SS, transport: 'ws' },
  [...SS, ...SECURED[1]],
  { impl: 'blinksocks', presets: SS, transport: 'wss' },
  ...[...TRANSPORTS, ...SECURED].flatMap((transports) => [
    [VLESS, ...transports],
    { impl: 'xray', protocol: 'vless', ...peerFields(transports) },
    { impl: 'sing-box', protocol: 'vless', ...peerFields(transports) },
  ]),
  [VLESS, { name: 'h2' }, TLS_H2],
  { impl: 'sing-box', protocol: 'vless', tls: true, transport: 'h2' },
  [VMESS, { name: 'h2' }, TLS_H2],
  { impl: 'v2ray', protocol: 'vmess', security: 'aes-128-gcm', tls: true, transport: 'h2' },
];
