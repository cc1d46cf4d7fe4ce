import { hkdfSync } from 'node:crypto';

const INFO = 'ss-subkey';

// SIP004: each direction of an AEAD connection is sealed with
// HKDF-SHA1(masterKey, salt, "ss-subkey"), so no two connections share a key.
export function deriveSubkey(masterKey, salt) {
  return Buffer.from(hkdfSync('sha1', masterKey, salt, INFO, masterKey.length));
}
