// The question a server operator asks today (issue 50): the same protocol
// on ours, Xray-core, sing-box and shadowsocks-rust side by side, then the
// rows only Xray and sing-box carry. Run with
//   node bin/cipherbench.js run benchmark/cases/today.cases.js --repeat 5 \
//     --relative-to 'xray shadowsocks aes-256-gcm'
// and the request workload with
//   node bin/cipherbench.js requests benchmark/cases/today.cases.js --new-connections
// xray and sing-box rows need both on PATH (.ci/run builds them with go
// install; the README says how), shadowsocks-rust rows ssserver and
// sslocal, trojan-gfw and v2ray rows Debian's trojan and v2ray; a row whose
// program is missing is SKIPPED with the line that installs it.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const SS2022 = '2022-blake3-aes-128-gcm';
const tls = { name: 'tls' };

export default [
  { impl: 'direct' },
  { impl: 'plain' },
  // Shadowsocks 2022, the method a new deployment picks.
  [{ name: 'ss-2022', params: { method: SS2022 } }],
  { impl: 'xray', protocol: 'shadowsocks', method: SS2022 },
  { impl: 'sing-box', protocol: 'shadowsocks', method: SS2022 },
  { impl: 'shadowsocks-rust', method: SS2022 },
  // Shadowsocks AEAD, which every client still speaks.
  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
  { impl: 'xray', protocol: 'shadowsocks', method: 'aes-256-gcm' },
  { impl: 'sing-box', protocol: 'shadowsocks', method: 'aes-256-gcm' },
  { impl: 'shadowsocks-rust', method: 'aes-256-gcm' },
  { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
  // VLESS and Trojan inside TLS, VMess with its own AEAD.
  [{ name: 'vless', params: { id: ID } }, tls],
  { impl: 'xray', protocol: 'vless', tls: true },
  { impl: 'sing-box', protocol: 'vless', tls: true },
  [{ name: 'trojan' }, tls],
  { impl: 'xray', protocol: 'trojan', tls: true },
  { impl: 'sing-box', protocol: 'trojan', tls: true },
  { impl: 'trojan-gfw' },
  [{ name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } }],
  { impl: 'xray', protocol: 'vmess', security: 'aes-128-gcm' },
  { impl: 'sing-box', protocol: 'vmess', security: 'aes-128-gcm' },
  { impl: 'v2ray', security: 'aes-128-gcm' },
  // What only they carry.
  { impl: 'xray', protocol: 'vless', reality: true, flow: 'xtls-rprx-vision' },
  { impl: 'xray', protocol: 'vless', tls: true, flow: 'xtls-rprx-vision' },
  { impl: 'sing-box', protocol: 'hysteria2' },
  { impl: 'sing-box', protocol: 'tuic' },
  { impl: 'sing-box', protocol: 'shadowtls', method: SS2022 },
  { impl: 'sing-box', protocol: 'anytls' },
];
