// @ts-check
import { AEAD_2022_METHODS } from '../crypto/aead-2022-methods.js';

// What Xray-core and sing-box both take from a case, as both spell it.
export const SHADOWSOCKS_METHODS = [
  'aes-128-gcm',
  'aes-256-gcm',
  'chacha20-ietf-poly1305',
  'xchacha20-ietf-poly1305',
  ...Object.keys(AEAD_2022_METHODS),
];
export const VMESS_SECURITIES = ['aes-128-gcm', 'chacha20-poly1305', 'none', 'auto', 'zero'];
export const TRANSPORTS = ['tcp', 'ws', 'grpc', 'httpupgrade'];
// Where a transport's requests go: the ws and httpupgrade presets' default
// path, so a chain of ours that names none meets either program (the
// transport interop tests run exactly that).
export const TRANSPORT_PATH = '/cipherbench';
export const GRPC_SERVICE = 'cipherbench';
