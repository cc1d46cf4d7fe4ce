import { createCipheriv } from 'node:crypto';

const requested = () =>
  process.execArgv.includes('--openssl-legacy-provider') ||
  /(^|\s)--openssl-legacy-provider(\s|$)/.test(process.env.NODE_OPTIONS ?? '');

// 'loaded' when rc4 and blowfish work in this process; otherwise why not:
// 'not-requested' (Node was started without the flag) or 'unavailable'
// (the flag was given but this OpenSSL has no legacy module to load).
export function legacyProviderStatus() {
  try {
    createCipheriv('rc4', Buffer.alloc(16), null);
    createCipheriv('bf-cfb', Buffer.alloc(16), Buffer.alloc(8));
    return 'loaded';
  } catch {
    return requested() ? 'unavailable' : 'not-requested';
  }
}

export const LEGACY_FLAG = '--openssl-legacy-provider';
