// Shadowsocks aes-256-gcm over tcp, ws, httpupgrade and grpc, ours beside
// Xray's over the same (issue 51's bulk targets: each transport against our
// tcp, and ours against Xray's per transport). Run with
//   PATH=/var/cache/cipherbench/go/bin:$PATH node bin/cipherbench.js run \
//     benchmark/cases/ss-transports.cases.js --repeat 5 --duration 2 --no-ceiling --relative-to 1
const SS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const xray = (transport) => ({
  impl: 'xray',
  protocol: 'shadowsocks',
  method: 'aes-256-gcm',
  ...(transport ? { transport } : {}),
});

export default [
  SS,
  xray(),
  [...SS, { name: 'ws' }],
  xray('ws'),
  [...SS, { name: 'httpupgrade' }],
  xray('httpupgrade'),
  [...SS, { name: 'grpc' }],
  xray('grpc'),
];
