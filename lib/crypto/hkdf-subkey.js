import { hkdfSync } from 'node:crypto';

export const SS_SUBKEY_INFO = 'ss-subkey';

// SIP004: each direction of an AEAD connection is sealed with
// HKDF-SHA1(masterKey, salt, "ss-subkey"), so no two connections share a key.
// masterKey: bytes or a KeyObject of them. blinksocks lets a chain choose
// another info string (aead-random-cipher's "bs-subkey").
export function deriveSubkey(
  masterKey,
  salt,
  length = masterKey.length ?? masterKey.symmetricKeySize,
  info = SS_SUBKEY_INFO,
) {
  return Buffer.from(hkdfSync('sha1', masterKey, salt, info, length));
}
