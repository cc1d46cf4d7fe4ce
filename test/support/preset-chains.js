// Representative chains that the hostile-input, storm and replay suites run
// against a real relay server. A new preset (or a new family of chains) is
// covered by those suites once a line here names one of its chains.
// `label` names the chain in test titles; `presets` is the chain as the CLI
// takes it; `password`, when given, is the key the chain must be run with
// (Shadowsocks 2022 takes a base64 PSK of its method's length, never a
// password: newChainPassword(catalogue, presets) in lib/chain/requirements.js makes
// one), and
// `wrongPassword` a key of the same format that is not it, for "wrong key".
const VMESS_ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const base = { name: 'ss-base' };
const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const ctr = { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } };
const ss = (cipher, method) => [base, { name: cipher, params: { method } }];
const ssr = (preset, method) => ({
  label: `${preset} + ${method}`,
  presets: [base, { name: preset }, { name: 'ss-stream-cipher', params: { method } }],
});
const ss2022 = (method, keyLength) => ({
  label: `ss-2022 ${method}`,
  presets: [{ name: 'ss-2022', params: { method } }],
  password: Buffer.alloc(keyLength, 0x22).toString('base64'),
  wrongPassword: Buffer.alloc(keyLength, 0x23).toString('base64'),
});

// By family, which is how the suites' test files split them (one file per
// suite and group, run side by side): `ss` is what shadowsocks-libev and
// -rust speak (with simple-obfs, libev's plugin), `blinksocks` its own
// presets and disguises, `vmess-ssr` the two other protocols,
// `trojan-vless` the two that run inside TLS.
const FAMILIES = {
  ss: [
    { label: 'ss aes-256-gcm', presets: ss('ss-aead-cipher', 'aes-256-gcm') },
    { label: 'ss chacha20-ietf-poly1305', presets: ss('ss-aead-cipher', 'chacha20-ietf-poly1305') },
    { label: 'ss aes-256-ctr', presets: ss('ss-stream-cipher', 'aes-256-ctr') },
    { label: 'ss chacha20-ietf', presets: ss('ss-stream-cipher', 'chacha20-ietf') },
    { label: 'ss-base + ss-aead-cipher(chacha20-poly1305)', presets: ss('ss-aead-cipher', 'chacha20-poly1305') },
    { label: 'ss-base + ss-stream-cipher(rc4-md5-6)', presets: ss('ss-stream-cipher', 'rc4-md5-6') },
    { label: 'ss-base + ss-stream-cipher(none)', presets: ss('ss-stream-cipher', 'none') },
    ss2022('2022-blake3-aes-256-gcm', 32),
    ss2022('2022-blake3-chacha20-poly1305', 32),
    {
      label: 'aes-256-gcm + simple-obfs http',
      presets: [base, gcm, { name: 'simple-obfs', params: { mode: 'http' } }],
    },
    { label: 'aes-256-gcm + simple-obfs tls', presets: [base, gcm, { name: 'simple-obfs', params: { mode: 'tls' } }] },
  ],
  blinksocks: [
    { label: 'base-auth + ss-aead-cipher(aes-256-gcm)', presets: [{ name: 'base-auth' }, gcm] },
    {
      label: 'base-auth(md5) + ss-stream-cipher(aes-256-ctr)',
      presets: [{ name: 'base-auth', params: { method: 'md5' } }, ctr],
    },
    {
      label: 'base-auth + aead-random-cipher(aes-256-gcm)',
      presets: [{ name: 'base-auth' }, { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } }],
    },
    {
      label: 'ss-base + aead-random-cipher(aes-128-gcm, factor 10)',
      presets: [base, { name: 'aead-random-cipher', params: { method: 'aes-128-gcm', factor: 10 } }],
    },
    { label: 'obfs-random-padding + aes-256-gcm', presets: [base, { name: 'obfs-random-padding' }, gcm] },
    {
      label: 'aes-256-ctr + obfs-tls1.2-ticket',
      presets: [base, ctr, { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } }],
    },
    { label: 'aes-256-gcm + obfs-http', presets: [base, gcm, { name: 'obfs-http' }] },
    {
      label: 'obfs-random-padding + aes-256-gcm + obfs-tls1.2-ticket',
      presets: [
        base,
        { name: 'obfs-random-padding' },
        gcm,
        { name: 'obfs-tls1.2-ticket', params: { sni: 'test.com' } },
      ],
    },
  ],
  'vmess-ssr': [
    {
      label: 'v2ray-vmess aes-128-gcm (AEAD header)',
      presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'aes-128-gcm' } }],
    },
    {
      label: 'v2ray-vmess chacha20-poly1305 alterId 4 (legacy header)',
      presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'chacha20-poly1305', alterId: 4 } }],
    },
    { label: 'v2ray-vmess none', presets: [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'none' } }] },
    ssr('ssr-auth-aes128-md5', 'aes-256-ctr'),
    ssr('ssr-auth-aes128-sha1', 'aes-256-ctr'),
    ssr('ssr-auth-chain-a', 'none'),
    ssr('ssr-auth-chain-b', 'none'),
  ],
  // Trojan and VLESS as they are inside TLS: the suites speak to the relay
  // in plain TCP, so they reach the protocols' own decoders (the tls
  // transport's handshake has its suite in relay-hostile-tls.test.js).
  // The replay suite has no file for them: neither has a salt or nonce of
  // its own, and TLS refuses a replayed connection (tested there).
  'trojan-vless': [
    { label: 'trojan', presets: [{ name: 'trojan' }] },
    { label: 'vless', presets: [{ name: 'vless', params: { id: VMESS_ID } }] },
  ],
};
const ALL_CHAINS = Object.values(FAMILIES).flat();

// CIPHERBENCH_CHAINS=REGEX runs the suites over the chains whose label it
// matches, to work on one preset without the whole list's minutes.
const only = process.env.CIPHERBENCH_CHAINS ? new RegExp(process.env.CIPHERBENCH_CHAINS) : null;
const selected = (chains) => (only ? chains.filter(({ label }) => only.test(label)) : chains);
export const PRESET_CHAINS = selected(ALL_CHAINS);

// The chains of one family of FAMILIES, for one of a suite's test files.
export function chainsOf(family) {
  if (!FAMILIES[family]) throw new Error(`no family ${family}; known: ${Object.keys(FAMILIES).join(', ')}`);
  return selected(FAMILIES[family]);
}
