// Representative chains that the hostile-input, storm and replay suites run
// against a real relay server. A new preset (or a new family of chains) is
// covered by those suites once a line here names one of its chains.
// `label` names the chain in test titles; `presets` is the chain as the CLI
// takes it; `password`, when given, is the key the chain must be run with
// (Shadowsocks 2022 takes a base64 PSK of its method's length, never a
// password: newChainPassword(presets) in lib/presets/index.js makes one), and
// `wrongPassword` a key of the same format that is not it, for "wrong key".
const ss2022 = (method, keyLength) => ({
  label: `ss-2022 ${method}`,
  presets: [{ name: 'ss-2022', params: { method } }],
  password: Buffer.alloc(keyLength, 0x22).toString('base64'),
  wrongPassword: Buffer.alloc(keyLength, 0x23).toString('base64'),
});
const ss = (cipher, method) => [{ name: 'ss-base' }, { name: cipher, params: { method } }];

export const PRESET_CHAINS = [
  { label: 'ss aes-256-gcm', presets: ss('ss-aead-cipher', 'aes-256-gcm') },
  { label: 'ss chacha20-ietf-poly1305', presets: ss('ss-aead-cipher', 'chacha20-ietf-poly1305') },
  { label: 'ss aes-256-ctr', presets: ss('ss-stream-cipher', 'aes-256-ctr') },
  { label: 'ss chacha20-ietf', presets: ss('ss-stream-cipher', 'chacha20-ietf') },
  ss2022('2022-blake3-aes-256-gcm', 32),
  ss2022('2022-blake3-chacha20-poly1305', 32),
];
