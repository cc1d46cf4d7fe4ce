// Shadowsocks aes-256-gcm over plain TCP and over grpc, ours beside
// Xray's, for issue 51's targets: ours over grpc at least 0.8x ours over
// TCP, and against Xray's grpc no worse than our TCP stands against
// Xray's TCP (docs/notes/grpc-h2.md). Run with
//   node bin/cipherbench.js run benchmark/cases/grpc-bulk.cases.js --repeat 5
const SS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const XRAY = { impl: 'xray', protocol: 'shadowsocks', method: 'aes-256-gcm' };

export default [SS, [...SS, { name: 'grpc' }], XRAY, { ...XRAY, transport: 'grpc' }];
