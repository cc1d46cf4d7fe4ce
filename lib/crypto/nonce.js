// Shadowsocks AEAD nonces are little-endian counters (SIP004).
export function addLittleEndian(nonce, n) {
  let carry = n;
  for (let i = 0; i < nonce.length && carry > 0; i++) {
    const sum = nonce[i] + carry;
    nonce[i] = sum & 0xff;
    carry = sum >>> 8;
  }
  return nonce;
}
