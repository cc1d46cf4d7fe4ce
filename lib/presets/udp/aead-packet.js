import { TAG_LENGTH } from '../../crypto/aead-methods.js';
import { randomView } from '../../crypto/random-pool.js';
import { createHkdfSha1 } from '../../crypto/hkdf-sha1.js';
import { openSealed } from '../../wire/aead-chunks.js';
import { protocolError } from '../../wire/protocol-error.js';

// SIP004 UDP: every datagram stands alone as
//   salt | AEAD(HKDF-SHA1(masterKey, salt, info), nonce 0, plaintext) | tag
// (a fresh salt, so a fresh subkey, per datagram; the all-zero nonce is used
// once per subkey). masterKey: bytes. Salts come from the CSPRNG pool: a
// randomBytes() call per datagram costs more than the salt. The subkey comes
// from hkdf-sha1.js rather than hkdfSync, which costs several times more.
export function aeadPacket(method, masterKey, info) {
  const zeroNonce = Buffer.alloc(method.nonceLength);
  const subkeyFor = createHkdfSha1(masterKey, info, method.keyLength);
  const keyFor = (salt) => method.importKey(subkeyFor(salt));
  return {
    overhead: method.saltLength + TAG_LENGTH,
    seal(plaintext, salt = randomView(method.saltLength)) {
      const cipher = method.seal(keyFor(salt), zeroNonce);
      const ciphertext = cipher.update(plaintext);
      cipher.final();
      return Buffer.concat([salt, ciphertext, cipher.getAuthTag()]);
    },
    open(packet) {
      if (packet.length < method.saltLength + TAG_LENGTH) {
        throw protocolError(`datagram of ${packet.length} bytes is shorter than a salt and a tag`);
      }
      const salt = packet.subarray(0, method.saltLength);
      const plaintext = openSealed(method, keyFor(salt), zeroNonce, packet.subarray(method.saltLength));
      if (!plaintext) throw protocolError('AEAD tag mismatch in a datagram: wrong key or corrupted');
      return plaintext;
    },
  };
}
