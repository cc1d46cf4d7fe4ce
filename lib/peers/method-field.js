// The `method` of a peer that takes a Shadowsocks cipher name: present, a
// string, and one the peer supports.
export function validateMethod(reference, methods) {
  const { method } = reference;
  if (method === undefined) return [{ field: 'method', message: `missing; valid: ${methods.join(', ')}` }];
  if (!methods.includes(method)) {
    return [{ field: 'method', message: `${reference.impl} does not support ${JSON.stringify(method)}; valid: ${methods.join(', ')}` }];
  }
  return [];
}
