// WebSocket masking (RFC 6455 5.3) through ws-mask.wat: the bytes go to the
// module's memory in blocks, are masked there 16 at a time, and come back.
// Two copies and a SIMD pass cost less than JavaScript's XOR loop, which
// ran at about 1 GB/s here (docs/transports.md). The module is instantiated
// synchronously at import, and every call runs to its end synchronously,
// so one memory serves every connection of the process.
import { WS_MASK_WASM } from './ws-mask-bytes.js';

const { exports: wasm } = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(WS_MASK_WASM, 'base64')));
// The memory never grows, so this view stays valid.
const memory = new Uint8Array(wasm.memory.buffer);
const BLOCK = 65536;

// The key as the module's little-endian word, turned so that its first byte
// is the one at `phase`: a frame's byte n is masked with key[n mod 4].
const keyWord = (key, phase) =>
  key[phase & 3] | (key[(phase + 1) & 3] << 8) | (key[(phase + 2) & 3] << 16) | (key[(phase + 3) & 3] << 24);

// Masks `from` into `to` at `offset` (or in place when `to` is `from` and
// offset is 0) with `key`, starting `phase` bytes into it; returns the phase
// for the bytes that follow.
export function maskInto(from, to, offset, key, phase) {
  for (let at = 0; at < from.length; at += BLOCK) {
    const block = from.subarray(at, at + BLOCK);
    memory.set(block, 0);
    wasm.mask(block.length, keyWord(key, phase + at));
    to.set(memory.subarray(0, block.length), offset + at);
  }
  return (phase + from.length) & 3;
}

// Unmasks (or masks: it is its own inverse) `bytes` in place.
export const applyMask = (bytes, key, phase = 0) => maskInto(bytes, bytes, 0, key, phase);
