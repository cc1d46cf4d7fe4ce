import { fromBytes, fromHashAndLength } from './xorshift128plus.js';

// How much padding an auth_chain frame carries and where the data sits in
// it: both ends compute it from the previous frame's HMAC and the data
// length, so it is never sent. Each returns { padding, start } (start: the
// data's offset inside the padding), drawn from the same generator.
// `overhead` is what the Python relay adds per frame (4 with plain obfs).
const OVERHEAD = 4;

function fallback(size, generator) {
  if (size > 1300) return Number(generator.next() % 31n);
  if (size > 900) return Number(generator.next() % 127n);
  if (size > 400) return Number(generator.next() % 521n);
  return Number(generator.next() % 1021n);
}

function withStart(padding, size, generator) {
  if (padding === 0 || size === 0) return { padding, start: 0 };
  return { padding, start: Number((generator.next() % 8589934609n) % BigInt(padding)) };
}

// auth_chain_a: none above 1440 bytes, else random within a bound that
// shrinks as the data grows.
export function chainAPadding(hash, size) {
  if (size > 1440) return { padding: 0, start: 0 };
  const generator = fromHashAndLength(hash, size);
  return withStart(fallback(size, generator), size, generator);
}

// auth_chain_b pads frames up to one of a few lengths drawn once from the
// key, so the lengths on the wire cluster as a key-specific set.
export function chainBSizes(key) {
  const generator = fromBytes(key);
  const draw = (count) =>
    Array.from({ length: count }, () => Number(((generator.next() % 2340n) % 2040n) % 1440n)).sort((a, b) => a - b);
  const first = draw(Number(generator.next() % 8n) + 4);
  const second = draw(Number(generator.next() % 16n) + 8);
  return [first, second];
}

const bisectLeft = (list, value) => {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (list[mid] < value) low = mid + 1;
    else high = mid;
  }
  return low;
};

export function chainBPadding([first, second], hash, size) {
  if (size >= 1440) return { padding: 0, start: 0 };
  const generator = fromHashAndLength(hash, size);
  const padding = (() => {
    const at = bisectLeft(first, size + OVERHEAD) + Number(generator.next() % BigInt(first.length));
    if (at < first.length) return first[at] - size - OVERHEAD;
    const base = bisectLeft(second, size + OVERHEAD);
    const at2 = base + Number(generator.next() % BigInt(second.length));
    if (at2 < second.length) return second[at2] - size - OVERHEAD;
    if (at2 < base + second.length - 1) return 0;
    return fallback(size, generator);
  })();
  return withStart(padding, size, generator);
}
