// Representative chains of every preset, for the suites that run against
// all of them (hostile input, replay). Each preset's owner adds its own.
const VMESS_ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const base = { name: 'ss-base' };
const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const ctr = { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } };

export const PRESET_CHAINS = [
  { label: 'v2ray-vmess aes-128-gcm (AEAD header)', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'aes-128-gcm' } }] },
  { label: 'v2ray-vmess chacha20-poly1305 alterId 4 (legacy header)', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'chacha20-poly1305', alterId: 4 } }] },
  { label: 'v2ray-vmess none', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'none' } }] },
  { label: 'obfs-random-padding + aes-256-gcm', presets: [base, { name: 'obfs-random-padding' }, gcm] },
  { label: 'aes-256-ctr + obfs-tls1.2-ticket', presets: [base, ctr, { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } }] },
  { label: 'aes-256-gcm + obfs-http', presets: [base, gcm, { name: 'obfs-http' }] },
  {
    label: 'obfs-random-padding + aes-256-gcm + obfs-tls1.2-ticket',
    presets: [base, { name: 'obfs-random-padding' }, gcm, { name: 'obfs-tls1.2-ticket', params: { sni: 'test.com' } }],
  },
];
