// @ts-check
import { AEAD_2022_METHODS } from '../crypto/aead-2022-methods.js';
import { AEAD_METHODS } from '../crypto/aead-methods.js';
import { STREAM_METHODS } from '../crypto/stream-methods.js';
import { nearestHint } from '../nearest-name.js';

// Every Shadowsocks cipher name ours knows: one of these that a peer lacks
// was not mistyped, so it gets no "did you mean".
const KNOWN_METHODS = new Set([STREAM_METHODS, AEAD_METHODS, AEAD_2022_METHODS].flatMap(Object.keys));

export const methodHint = (method, methods) => (KNOWN_METHODS.has(method) ? '' : nearestHint(method, methods));

// The `method` of a peer that takes a Shadowsocks cipher name: present, a
// string, and one the peer supports.
export function validateMethod(reference, methods) {
  const { method } = reference;
  if (method === undefined) return [{ field: 'method', message: `missing; valid: ${methods.join(', ')}` }];
  if (!methods.includes(method)) {
    return [
      {
        field: 'method',
        message: `${reference.impl} does not support ${JSON.stringify(method)}${methodHint(method, methods)}; valid: ${methods.join(', ')}`,
      },
    ];
  }
  return [];
}
