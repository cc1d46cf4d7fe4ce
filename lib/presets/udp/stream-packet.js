import { randomView } from '../../crypto/random-pool.js';
import { protocolError } from '../../wire/protocol-error.js';

// Stream-cipher UDP: IV | ciphertext of the whole plaintext, a fresh IV and
// cipher per datagram. Nothing authenticates it: a wrong key or a flipped
// bit yields other bytes, which the address check after it mostly refuses.
export function streamPacket(method, key) {
  return {
    overhead: method.ivLength,
    seal(plaintext, iv = randomView(method.ivLength)) {
      return Buffer.concat([iv, method.create(false, key, iv).update(plaintext)]);
    },
    open(packet) {
      if (packet.length <= method.ivLength)
        throw protocolError(`datagram of ${packet.length} bytes holds no more than an IV`);
      const iv = packet.subarray(0, method.ivLength);
      return method.create(true, key, iv).update(packet.subarray(method.ivLength));
    },
  };
}
