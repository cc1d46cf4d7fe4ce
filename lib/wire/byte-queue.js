// Bytes received but not yet decoded. Decoders ask for exact record sizes;
// a record that lies inside one received buffer is returned as a view (no
// copy), and only records split across TCP reads are copied together.
// A class, not closures: every connection makes one or two, and a queue's
// methods then cost it nothing to create.
class ByteQueue {
  #buffers = [];
  #length = 0;

  get length() {
    return this.#length;
  }

  push(buffer) {
    if (buffer.length === 0) return;
    this.#buffers.push(buffer);
    this.#length += buffer.length;
  }

  // Returns exactly n bytes, or null when fewer than n are queued.
  take(n) {
    if (this.#length >= n) return this.#take(n);
    this.#compact();
    return null;
  }

  peek(index) {
    for (const buffer of this.#buffers) {
      if (index < buffer.length) return buffer[index];
      index -= buffer.length;
    }
    return undefined;
  }

  takeAll() {
    const buffers = this.#buffers;
    const all = buffers.length === 1 ? buffers[0] : Buffer.concat(buffers, this.#length);
    this.#buffers = [];
    this.#length = 0;
    return all;
  }

  #take(n) {
    const buffers = this.#buffers;
    const first = buffers[0];
    if (first.length > n) {
      buffers[0] = first.subarray(n);
      this.#length -= n;
      return first.subarray(0, n);
    }
    if (first.length === n) {
      buffers.shift();
      this.#length -= n;
      return first;
    }
    // The buffers used up leave in one splice: a shift each would make a
    // record sent a byte per read cost quadratic time (1.5 s for 64 KiB).
    const out = Buffer.allocUnsafe(n);
    let offset = 0;
    let used = 0;
    while (offset < n) {
      const head = buffers[used];
      const wanted = n - offset;
      if (head.length <= wanted) {
        head.copy(out, offset);
        offset += head.length;
        used++;
      } else {
        head.copy(out, offset, 0, wanted);
        buffers[used] = head.subarray(wanted);
        offset = n;
      }
    }
    buffers.splice(0, used);
    this.#length -= n;
    return out;
  }

  // A decoder told "not yet" waits for the next read, for long if its flow
  // is paused: what it keeps is copied out of the reads it came in, so a
  // few KB of a record do not hold a whole 64 KB read in memory.
  #compact() {
    let held = 0;
    for (const buffer of this.#buffers) held += buffer.buffer.byteLength;
    if (held <= 2 * this.#length) return;
    const kept = Buffer.allocUnsafeSlow(this.#length);
    let offset = 0;
    for (const buffer of this.#buffers) offset += buffer.copy(kept, offset);
    this.#buffers = [kept];
  }
}

export const createByteQueue = () => new ByteQueue();
