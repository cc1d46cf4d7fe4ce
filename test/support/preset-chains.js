// Representative chains of every preset, for the suites that run against
// all of them with a real relay server (hostile input, storm, probing,
// replay and reflection). Each preset's owner adds its own; `label` names
// the chain in test titles, `presets` is the chain as the CLI takes it.
const VMESS_ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const base = { name: 'ss-base' };
const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const ctr = { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } };

const ssr = (preset, method) => ({
  label: `${preset} + ${method}`,
  presets: [{ name: 'ss-base' }, { name: preset }, { name: 'ss-stream-cipher', params: { method } }],
});

export const PRESET_CHAINS = [
  { label: 'ss-base + ss-aead-cipher(aes-256-gcm)', presets: [base, gcm] },
  { label: 'ss-base + ss-aead-cipher(chacha20-ietf-poly1305)', presets: [base, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }] },
  { label: 'ss-base + ss-stream-cipher(aes-256-ctr)', presets: [base, ctr] },
  { label: 'ss-base + ss-stream-cipher(chacha20-ietf)', presets: [base, { name: 'ss-stream-cipher', params: { method: 'chacha20-ietf' } }] },
  { label: 'v2ray-vmess aes-128-gcm (AEAD header)', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'aes-128-gcm' } }] },
  { label: 'v2ray-vmess chacha20-poly1305 alterId 4 (legacy header)', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'chacha20-poly1305', alterId: 4 } }] },
  { label: 'v2ray-vmess none', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'none' } }] },
  { label: 'base-auth + ss-aead-cipher(aes-256-gcm)', presets: [{ name: 'base-auth' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }] },
  { label: 'base-auth(md5) + ss-stream-cipher(aes-256-ctr)', presets: [{ name: 'base-auth', params: { method: 'md5' } }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }] },
  { label: 'base-auth + aead-random-cipher(aes-256-gcm)', presets: [{ name: 'base-auth' }, { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } }] },
  { label: 'ss-base + aead-random-cipher(aes-128-gcm, factor 10)', presets: [{ name: 'ss-base' }, { name: 'aead-random-cipher', params: { method: 'aes-128-gcm', factor: 10 } }] },
  { label: 'ss-base + ss-aead-cipher(chacha20-poly1305)', presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-poly1305' } }] },
  { label: 'ss-base + ss-stream-cipher(rc4-md5-6)', presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'rc4-md5-6' } }] },
  { label: 'ss-base + ss-stream-cipher(none)', presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'none' } }] },
  { label: 'obfs-random-padding + aes-256-gcm', presets: [base, { name: 'obfs-random-padding' }, gcm] },
  { label: 'aes-256-ctr + obfs-tls1.2-ticket', presets: [base, ctr, { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } }] },
  { label: 'aes-256-gcm + obfs-http', presets: [base, gcm, { name: 'obfs-http' }] },
  {
    label: 'obfs-random-padding + aes-256-gcm + obfs-tls1.2-ticket',
    presets: [base, { name: 'obfs-random-padding' }, gcm, { name: 'obfs-tls1.2-ticket', params: { sni: 'test.com' } }],
  },
  ssr('ssr-auth-aes128-md5', 'aes-256-ctr'),
  ssr('ssr-auth-aes128-sha1', 'aes-256-ctr'),
  ssr('ssr-auth-chain-a', 'none'),
  ssr('ssr-auth-chain-b', 'none'),
];
