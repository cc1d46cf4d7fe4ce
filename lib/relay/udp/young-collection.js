import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

// Every datagram Node reads arrives in an ArrayBuffer of its own, its
// bytes in the malloc heap, not V8's; so do the buffers it is decrypted
// and sealed into. V8 frees them when it next collects its young
// generation, which it paces by its own objects, not by those bytes: a
// datagram refused at a full table leaves a few hundred bytes of objects
// and over a kilobyte of buffer, so a flood's buffers could wait by the
// tens of MB, and then be freed on a background thread that a busy
// machine runs late. Meanwhile malloc took new pages, which it keeps.
// So a UDP relay counts what it receives and has the young generation
// collected every `limit` bytes, its buffers freed within that pause:
// however busy the machine, no more than `limit` of them wait
// (docs/notes/reliability.md).
const YOUNG_COLLECTION_BYTES = 2 * 2 ** 20;
// What a received buffer costs beyond its bytes: Node's and V8's
// bookkeeping for it, malloc's headers.
const PER_BUFFER_BYTES = 256;

let collectYoung = null;
function youngCollector() {
  if (collectYoung) return collectYoung;
  let gc = globalThis.gc;
  if (typeof gc !== 'function') {
    // A gc() for this module alone: exposed to a new context only, and
    // hidden again from any made later.
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc');
    v8.setFlagsFromString('--no-expose-gc');
  }
  // The flag is read at each collection: from now on, buffers are freed in
  // the collection's pause rather than later on a helper thread.
  v8.setFlagsFromString('--no-concurrent-array-buffer-sweeping');
  collectYoung = () => gc({ type: 'minor' });
  return collectYoung;
}

// Returns received(length), to call with each datagram's length.
export function collectYoungEvery(limit = YOUNG_COLLECTION_BYTES) {
  const collect = youngCollector();
  let bytes = 0;
  return (length) => {
    bytes += length + PER_BUFFER_BYTES;
    if (bytes < limit) return;
    bytes = 0;
    collect();
  };
}
