// Representative chains that the hostile-input, storm and replay suites run
// against a real relay server. A new preset (or a new family of chains) is
// covered by those suites once a line here names one of its chains.
// `label` names the chain in test titles; `presets` is the chain as the CLI
// takes it.
const ss = (cipher, method) => [{ name: 'ss-base' }, { name: cipher, params: { method } }];

export const PRESET_CHAINS = [
  { label: 'ss aes-256-gcm', presets: ss('ss-aead-cipher', 'aes-256-gcm') },
  { label: 'ss chacha20-ietf-poly1305', presets: ss('ss-aead-cipher', 'chacha20-ietf-poly1305') },
  { label: 'ss aes-256-ctr', presets: ss('ss-stream-cipher', 'aes-256-ctr') },
  { label: 'ss chacha20-ietf', presets: ss('ss-stream-cipher', 'chacha20-ietf') },
];
