import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { AEAD_METHODS } from '../../lib/crypto/aead-methods.js';
import { evpBytesToKey } from '../../lib/crypto/evp-bytes-to-key.js';
import { deriveSubkey } from '../../lib/crypto/hkdf-subkey.js';
import { PRESETS, prepareChain } from '../../lib/presets/index.js';

// Builders of hostile streams for any chain (test/support/preset-chains.js),
// made with the preset code itself so that each is wrong in exactly one way.

// What a real client sends for `payload` to `target` with `password`.
export function clientBytes({ presets, password, target, payload = Buffer.from('hello') }) {
  const out = [];
  const encode = prepareChain(presets, { password })('client', { target }).encoder((data) => out.push(data));
  encode(payload);
  return Buffer.concat(out);
}

// A stream sealed with the right key whose plaintext is `plaintext` as is,
// with no address header put in front (the chain without its address
// preset): for truncated or malformed headers.
export function sealedPlaintext({ presets, password, plaintext }) {
  const out = [];
  const rest = presets.filter((entry) => !PRESETS[entry.name].roles.includes('address'));
  prepareChain(rest, { password })('client', {}).encoder((data) => out.push(data))(plaintext);
  return Buffer.concat(out);
}

// The SIP004 method of a chain, or undefined when it has none.
export const aeadMethod = (presets) => presets.find((entry) => entry.name === 'ss-aead-cipher')?.params.method;

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
// `cutAfterMs` passed, for connections the client itself abandons) with how
// long it took, how it closed ('reset', 'end' or 'cut') and what came back.
// Rejects if the far side keeps it open past timeoutMs.
export function sendHostile({ port, host = '127.0.0.1', bytes, end = false, cutAfterMs = null, timeoutMs = 5000 }) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ port, host, allowHalfOpen: true });
    const received = [];
    let settled = false;
    const done = (how, error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(cut);
      socket.destroy();
      if (error) reject(error);
      else resolve({ ms: Date.now() - started, how, received: Buffer.concat(received) });
    };
    const timer = setTimeout(() => done(null, new Error(`:${port} kept a hostile connection open for ${timeoutMs} ms`)), timeoutMs);
    const cut = cutAfterMs === null ? null : setTimeout(() => done('cut'), cutAfterMs);
    socket.on('connect', () => (end ? socket.end(bytes) : socket.write(bytes)));
    socket.on('data', (data) => received.push(data));
    socket.on('error', (error) => done(error.code === 'ECONNRESET' ? 'reset' : error.code));
    socket.on('end', () => done('end'));
    socket.on('close', () => done('close'));
  });
}
