import { hkdfSync } from 'node:crypto';

const INFO = 'ss-subkey';

// SIP004: each direction of an AEAD connection is sealed with
// HKDF-SHA1(masterKey, salt, "ss-subkey"), so no two connections share a key.
// masterKey: bytes or a KeyObject of them.
export function deriveSubkey(masterKey, salt, length = masterKey.length ?? masterKey.symmetricKeySize) {
  return Buffer.from(hkdfSync('sha1', masterKey, salt, INFO, length));
}
