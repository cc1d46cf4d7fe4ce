// Representative chains of every preset, for the hostile-input and replay
// suites: each preset appears in at least one chain here.
const ssr = (preset, method) => ({
  label: `${preset} + ${method}`,
  presets: [{ name: 'ss-base' }, { name: preset }, { name: 'ss-stream-cipher', params: { method } }],
});

export const PRESET_CHAINS = [
  ssr('ssr-auth-aes128-md5', 'aes-256-ctr'),
  ssr('ssr-auth-aes128-sha1', 'aes-256-ctr'),
  ssr('ssr-auth-chain-a', 'none'),
  ssr('ssr-auth-chain-b', 'none'),
];
