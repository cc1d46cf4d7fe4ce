// Representative chains of every preset, for the suites that run hostile
// and replayed input against each (one entry per distinct wire format).
export const PRESET_CHAINS = [
  {
    label: 'simple-obfs http',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }, { name: 'simple-obfs', params: { mode: 'http' } }],
  },
  {
    label: 'simple-obfs tls',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }, { name: 'simple-obfs', params: { mode: 'tls' } }],
  },
];
