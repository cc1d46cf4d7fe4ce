// HChaCha20 (draft-irtf-cfrg-xchacha, section 2.2): node:crypto has
// chacha20-poly1305 but not XChaCha20, which is HChaCha20 to derive a subkey
// from the first 16 nonce bytes, then ChaCha20-Poly1305 with the rest.
import { chachaCore, SIGMA } from './chacha20-block.js';

const state = new Uint32Array(16);
const rounds = new Uint32Array(16);

// key: 32 bytes, nonce16: the first 16 bytes of the 24-byte XChaCha nonce.
// Writes the 32-byte subkey into out (allocated when not given) and returns it.
export function hchacha20(key, nonce16, out = Buffer.allocUnsafe(32)) {
  state.set(SIGMA, 0);
  for (let i = 0; i < 8; i++) state[4 + i] = key.readUInt32LE(i * 4);
  for (let i = 0; i < 4; i++) state[12 + i] = nonce16.readUInt32LE(i * 4);
  chachaCore(state, rounds, false);
  for (let i = 0; i < 4; i++) out.writeUInt32LE(rounds[i], i * 4);
  for (let i = 0; i < 4; i++) out.writeUInt32LE(rounds[12 + i], 16 + i * 4);
  return out;
}
