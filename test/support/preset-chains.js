// Representative chains of every preset, for the suites that run against
// all of them (hostile input, replay). Each preset's owner adds its own.
const VMESS_ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';

export const PRESET_CHAINS = [
  { label: 'v2ray-vmess aes-128-gcm (AEAD header)', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'aes-128-gcm' } }] },
  { label: 'v2ray-vmess chacha20-poly1305 alterId 4 (legacy header)', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'chacha20-poly1305', alterId: 4 } }] },
  { label: 'v2ray-vmess none', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'none' } }] },
  {
    label: 'simple-obfs http',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }, { name: 'simple-obfs', params: { mode: 'http' } }],
  },
  {
    label: 'simple-obfs tls',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }, { name: 'simple-obfs', params: { mode: 'tls' } }],
  },
];
