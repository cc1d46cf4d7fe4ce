import { createHash } from 'node:crypto';

// OpenSSL's EVP_BytesToKey with MD5, one iteration and no salt: how every
// Shadowsocks implementation turns a password into a master key. A string is
// taken as UTF-8; a key that is not UTF-8 comes as its bytes (a Buffer).
export function evpBytesToKey(password, keyLength) {
  const pass = Buffer.isBuffer(password) ? password : Buffer.from(password, 'utf8');
  const blocks = [];
  let length = 0;
  let previous = Buffer.alloc(0);
  while (length < keyLength) {
    previous = createHash('md5').update(previous).update(pass).digest();
    blocks.push(previous);
    length += previous.length;
  }
  return Buffer.concat(blocks).subarray(0, keyLength);
}
