// Poly1305 over long messages, in WebAssembly (poly1305.wat), for the tags
// over whole payloads: about ten times the JavaScript one's speed there.
// The module is small and instantiated synchronously at import, so callers
// need no async start-up.
import { POLY1305_WASM } from './poly1305-wasm-bytes.js';

const { exports: wasm } = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(POLY1305_WASM, 'base64')));
// The memory never grows, so this view stays valid.
const memory = new Uint8Array(wasm.memory.buffer);
const KEY = 0;
const TAG = 32;
const BUFFER = 64;
// Bytes copied in before each call into the module: a multiple of 16 that
// fits the module's one page after the buffer's offset.
const CAPACITY = 32768;

// Writes the 16-byte tag, under the 32-byte one-time key, of the message
// made of parts (byte arrays, one after another) to out at outOffset.
// Runs to the end synchronously: the module holds one MAC's state at a time.
export function poly1305Parts(key, parts, out, outOffset = 0) {
  memory.set(key.subarray(0, 32), KEY);
  wasm.init();
  let filled = 0;
  for (const part of parts) {
    for (let from = 0; from < part.length;) {
      const n = Math.min(CAPACITY - filled, part.length - from);
      memory.set(part.subarray(from, from + n), BUFFER + filled);
      filled += n;
      from += n;
      if (filled === CAPACITY) {
        wasm.blocks(BUFFER, BUFFER + CAPACITY);
        filled = 0;
      }
    }
  }
  const whole = filled & ~15;
  wasm.blocks(BUFFER, BUFFER + whole);
  memory.copyWithin(BUFFER, BUFFER + whole, BUFFER + filled);
  wasm.finish(BUFFER, filled - whole);
  out.set(memory.subarray(TAG, TAG + 16), outOffset);
}
