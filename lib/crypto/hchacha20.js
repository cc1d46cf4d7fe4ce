// HChaCha20 (draft-irtf-cfrg-xchacha, section 2.2): node:crypto has
// chacha20-poly1305 but not XChaCha20, which is HChaCha20 to derive a subkey
// from the first 16 nonce bytes, then ChaCha20-Poly1305 with the rest.

const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];
const state = new Uint32Array(16);

function quarterRound(x, a, b, c, d) {
  x[a] = (x[a] + x[b]) >>> 0; x[d] ^= x[a]; x[d] = (x[d] << 16) | (x[d] >>> 16);
  x[c] = (x[c] + x[d]) >>> 0; x[b] ^= x[c]; x[b] = (x[b] << 12) | (x[b] >>> 20);
  x[a] = (x[a] + x[b]) >>> 0; x[d] ^= x[a]; x[d] = (x[d] << 8) | (x[d] >>> 24);
  x[c] = (x[c] + x[d]) >>> 0; x[b] ^= x[c]; x[b] = (x[b] << 7) | (x[b] >>> 25);
}

// key: 32 bytes, nonce16: the first 16 bytes of the 24-byte XChaCha nonce.
// Writes the 32-byte subkey into out (allocated when not given) and returns it.
export function hchacha20(key, nonce16, out = Buffer.allocUnsafe(32)) {
  const x = state;
  x[0] = SIGMA[0]; x[1] = SIGMA[1]; x[2] = SIGMA[2]; x[3] = SIGMA[3];
  for (let i = 0; i < 8; i++) x[4 + i] = key.readUInt32LE(i * 4);
  for (let i = 0; i < 4; i++) x[12 + i] = nonce16.readUInt32LE(i * 4);
  for (let round = 0; round < 10; round++) {
    quarterRound(x, 0, 4, 8, 12);
    quarterRound(x, 1, 5, 9, 13);
    quarterRound(x, 2, 6, 10, 14);
    quarterRound(x, 3, 7, 11, 15);
    quarterRound(x, 0, 5, 10, 15);
    quarterRound(x, 1, 6, 11, 12);
    quarterRound(x, 2, 7, 8, 13);
    quarterRound(x, 3, 4, 9, 14);
  }
  for (let i = 0; i < 4; i++) out.writeUInt32LE(x[i], i * 4);
  for (let i = 0; i < 4; i++) out.writeUInt32LE(x[12 + i], 16 + i * 4);
  return out;
}
