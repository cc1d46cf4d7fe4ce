import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { AEAD_METHODS } from '../../lib/crypto/aead-methods.js';
import { evpBytesToKey } from '../../lib/crypto/evp-bytes-to-key.js';
import { deriveSubkey } from '../../lib/crypto/hkdf-subkey.js';
import { prepareChain } from '../../lib/presets/index.js';

// Builders of hostile Shadowsocks streams, made with the preset code itself
// so that each is wrong in exactly one way.
export const chainFor = (method) =>
  AEAD_METHODS[method]
    ? [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }]
    : [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method } }];

// What a real client sends for `payload` to `target` with `password`.
export function clientBytes({ method, password, target, payload = Buffer.from('hello') }) {
  const out = [];
  const encode = prepareChain(chainFor(method), { password })('client', { target }).encoder((data) => out.push(data));
  encode(payload);
  return Buffer.concat(out);
}

// A salt and a correctly sealed length field announcing `length` bytes.
export function sealedLength({ method, password, length }) {
  const spec = AEAD_METHODS[method];
  const salt = randomBytes(spec.saltLength);
  const subkey = deriveSubkey(evpBytesToKey(password, spec.keyLength), salt);
  const cipher = spec.seal(spec.importKey(subkey), Buffer.alloc(spec.nonceLength));
  const lengthBytes = Buffer.alloc(2);
  lengthBytes.writeUInt16BE(length);
  const sealed = cipher.update(lengthBytes);
  cipher.final();
  return Buffer.concat([salt, sealed, cipher.getAuthTag()]);
}

// Sends bytes to host:port and resolves once the far side has closed (or
// `cutAfterMs` passed, for connections the client itself abandons), with how
// long it took. Rejects if the far side keeps it open past timeoutMs.
export function sendHostile({ port, host = '127.0.0.1', bytes, end = false, cutAfterMs = null, timeoutMs = 5000 }) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ port, host, allowHalfOpen: true });
    const done = (error) => {
      clearTimeout(timer);
      clearTimeout(cut);
      socket.destroy();
      if (error) reject(error);
      else resolve({ ms: Date.now() - started });
    };
    const timer = setTimeout(() => done(new Error(`:${port} kept a hostile connection open for ${timeoutMs} ms`)), timeoutMs);
    const cut = cutAfterMs === null ? null : setTimeout(() => done(), cutAfterMs);
    socket.on('connect', () => (end ? socket.end(bytes) : socket.write(bytes)));
    socket.on('data', () => {});
    socket.on('error', () => done());
    socket.on('end', () => done());
    socket.on('close', () => done());
  });
}

// A stream sealed with the right key whose plaintext is `plaintext` as is,
// with no address header put in front (the chain skips ss-base): for
// truncated or malformed headers.
export function sealedPlaintext({ method, password, plaintext }) {
  const out = [];
  const [, cipher] = chainFor(method);
  prepareChain([cipher], { password })('client', {}).encoder((data) => out.push(data))(plaintext);
  return Buffer.concat(out);
}
