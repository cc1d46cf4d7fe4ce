// UDP over Mux.Cool (docs/notes/mux.md), for `cipherbench run --udp`:
// datagrams as sessions in a TCP tunnel beside our Shadowsocks UDP, which
// seals each datagram on its own; our VLESS and VMess chains with mux
// beside Xray's VLESS client with its mux on (XUDP).
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const SS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];
const MUX = { name: 'mux', params: { concurrency: 8 } };

export default [
  SS,
  [...SS, MUX],
  [{ name: 'vless', params: { id: ID } }, MUX],
  [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }, MUX],
  { impl: 'xray', protocol: 'vless', mux: true },
];
