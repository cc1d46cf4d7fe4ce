import { createCipheriv, createSecretKey, randomBytes, randomInt } from 'node:crypto';
import net from 'node:net';
import { AEAD_2022_METHODS, deriveSessionSubkey, parsePsk } from '../../../lib/crypto/aead-2022-methods.js';
import { AEAD_METHODS } from '../../../lib/crypto/aead-methods.js';
import { evpBytesToKey } from '../../../lib/crypto/evp-bytes-to-key.js';
import { deriveSubkey } from '../../../lib/crypto/hkdf-subkey.js';
import { CATALOGUE } from '../../../lib/presets/index.js';
import { prepareChain } from '../../../lib/chain/pipeline.js';
import { sealRecord } from '../../../lib/presets/ss-2022/chunks.js';
import { isProtocolError } from '../../../lib/wire/protocol-error.js';

// Builders of hostile streams for any chain (test/support/preset-chains.js),
// made with the preset code itself so that each is wrong in exactly one way.

// What a real client sends for `payload` to `target` with `password`.
export function clientBytes({ presets, password, target, payload = Buffer.from('hello') }) {
  const out = [];
  const encode = prepareChain(CATALOGUE, presets, { password })('client', { target }).encoder((data) => out.push(data));
  encode(payload);
  return Buffer.concat(out);
}

// A stream sealed with the right key whose plaintext is `plaintext` as is,
// with no address header put in front (the chain without its address
// preset): for truncated or malformed headers.
export function sealedPlaintext({ presets, password, plaintext }) {
  const out = [];
  const rest = presets.filter((entry) => !CATALOGUE.named(entry.name).roles.includes('address'));
  prepareChain(CATALOGUE, rest, { password })('client', {}).encoder((data) => out.push(data))(plaintext);
  return Buffer.concat(out);
}

// The SIP004 method of a chain whose wire is ss-aead-cipher's (nothing
// after it), or undefined: what sealedLength's records are sent to.
export const aeadMethod = (presets) =>
  presets.at(-1).name === 'ss-aead-cipher' ? presets.at(-1).params.method : undefined;

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
// `cutAfterMs` passed since the bytes were written, for connections the
// client itself abandons) with how long it took, how it closed ('reset',
// 'end' or 'cut') and what came back.
// Rejects if the far side keeps it open past timeoutMs: 10 s, ten times the
// suites' handshake timeout, as a loaded machine fires timers late.
export function sendHostile({ port, host = '127.0.0.1', bytes, end = false, cutAfterMs = null, timeoutMs = 10_000 }) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ port, host, allowHalfOpen: true });
    const received = [];
    let settled = false;
    let cut = null;
    const done = (how, error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(cut);
      socket.destroy();
      if (error) reject(error);
      else resolve({ ms: Date.now() - started, how, received: Buffer.concat(received) });
    };
    const timer = setTimeout(
      () => done(null, new Error(`:${port} kept a hostile connection open for ${timeoutMs} ms`)),
      timeoutMs,
    );
    // The cut counts from the write: counted from the connect, a stall of
    // this process past it fired the cut before the bytes were ever sent.
    socket.on('connect', () => {
      if (end) socket.end(bytes);
      else socket.write(bytes);
      if (cutAfterMs !== null) cut = setTimeout(() => done('cut'), cutAfterMs);
    });
    socket.on('data', (data) => received.push(data));
    socket.on('error', (error) => done(error.code === 'ECONNRESET' ? 'reset' : error.code));
    // libuv reports a reset that arrives during a read as an end: an end
    // counts only if an empty write back then succeeds.
    socket.on('end', () =>
      socket.writable ? socket.write(Buffer.alloc(0), (error) => done(error ? 'reset' : 'end')) : done('end'),
    );
    socket.on('close', () => done('close'));
  });
}

// Whether --key is this chain's secret: a request made with another
// password is refused by a server with the right one. (VMess keys on its
// params' id, and ss-stream-cipher `none` on nothing.) Under a stream
// cipher a wrong key's request decodes to random bytes, which name some
// target about once in 280 draws: one draw left a suite without its
// wrong-key test in a loop run, so a chain whose key is the secret need
// refuse only one of several.
const KEY_DRAWS = 8;
export function keyIsTheSecret(presets, password, wrongPassword = `not-${password}`) {
  return Array.from({ length: KEY_DRAWS }).some(() => {
    const wrong = clientBytes({ presets, password: wrongPassword, target: { host: '127.0.0.1', port: 9 } });
    return namedTarget(presets, password, wrong) === null;
  });
}

// The target `bytes` name to a fresh server pipeline of the chain under
// `password`, or null when they name none (refused, or too few).
export const namedTarget = (presets, password, bytes) =>
  targetNamedBy(prepareChain(CATALOGUE, presets, { password }), bytes);

// The same for a prepared chain `create` (prepareChain's), whose salt
// filter and clock a test may hold.
export function targetNamedBy(create, bytes) {
  let named = null;
  const pipeline = create('server', { onTarget: (target) => (named = target) });
  pipeline.encoder(() => {});
  try {
    pipeline.decoder(() => {})(bytes);
  } catch (error) {
    if (!isProtocolError(error)) throw error;
  }
  return named;
}

// Whether the chain ends in a disguise, which answers a well-formed
// handshake of its own (a TLS ClientHello, an HTTP request) before the
// cipher inside can tell a wrong key.
export const isDisguised = (presets) => presets.some((entry) => CATALOGUE.named(entry.name).roles.includes('disguise'));

// Whether the chain's server answers a handshake before anything in it is
// authenticated: obfs-tls1.2-ticket sends its flight for a ClientHello
// with one of its server names. obfs-http and simple-obfs answer with the
// target's first bytes only, so they are as silent as a bare cipher.
export const answersHandshake = (presets) => presets.some((entry) => entry.name === 'obfs-tls1.2-ticket');

// A real client connection through `presets`: the pipeline writes to the
// socket and reads from it, so handshakes complete. Resolves, once the
// answer decodes to `expected` bytes, with everything this client sent
// (`sent`, what an eavesdropper captures) and everything it received
// (`answer`, the server's own stream).
export function clientExchange({ port, presets, password, target, payload, expected }) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const sent = [];
    const answer = [];
    let plain = 0;
    const pipeline = prepareChain(CATALOGUE, presets, { password })('client', { target });
    const encode = pipeline.encoder((data) => {
      sent.push(data);
      socket.write(data);
    });
    const decode = pipeline.decoder((data) => {
      plain += data.length;
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer (${plain} of ${expected} bytes)`));
    }, 5000);
    socket.on('connect', () => {
      encode(Buffer.alloc(0));
      encode(payload);
    });
    socket.on('data', (data) => {
      answer.push(data);
      decode(data);
      if (plain >= expected) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ sent: Buffer.concat(sent), answer: Buffer.concat(answer) });
      }
    });
    socket.on('error', reject);
  });
}

// A valid request (payload 'hello', one record), then `count` sealed empty
// chunks, for a chain whose wire is a chunk stream that could carry them
// (ss-aead-cipher, ss-2022, aead-random-cipher, nothing after it); else
// undefined. Sealed here, as the encoders never seal an empty chunk.
export function emptyChunkFlood({ presets, password, target, count }) {
  const wire = presets.at(-1);
  const request = clientBytes({ presets, password, target });
  const chunks = [request];
  const gcm = (key, counter, plaintext, algorithm) => {
    const cipher = createCipheriv(algorithm, key, counterNonce(counter), { authTagLength: 16 });
    const sealed = cipher.update(plaintext);
    cipher.final();
    return Buffer.concat([sealed, cipher.getAuthTag()]);
  };
  if (wire.name === 'ss-aead-cipher') {
    const spec = AEAD_METHODS[wire.params.method];
    const subkey = deriveSubkey(evpBytesToKey(password, spec.keyLength), request.subarray(0, spec.saltLength));
    const key = spec.importKey(subkey);
    // The request was one chunk: nonces 0 and 1.
    for (let i = 1; i <= count; i++)
      chunks.push(sealWith(spec, key, 2 * i, Buffer.alloc(2)), sealWith(spec, key, 2 * i + 1, Buffer.alloc(0)));
  } else if (wire.name === 'ss-2022') {
    const { keyLength, aead } = AEAD_2022_METHODS[wire.params.method];
    const key = aead.importKey(
      deriveSessionSubkey(parsePsk(wire.params.method, password).psk, request.subarray(0, keyLength)),
    );
    // The request's two header records took nonces 0 and 1.
    for (let i = 1; i <= count; i++)
      chunks.push(sealRecord(aead, key, 2 * i, Buffer.alloc(2)), sealRecord(aead, key, 2 * i + 1, Buffer.alloc(0)));
  } else if (wire.name === 'aead-random-cipher') {
    const spec = AEAD_METHODS[wire.params.method];
    const algorithm = wire.params.method;
    const subkey = deriveSubkey(
      createSecretKey(Buffer.from(password, 'utf8')),
      request.subarray(0, spec.saltLength),
      spec.keyLength,
      wire.params.info ?? 'bs-subkey',
    );
    const factor = wire.params.factor ?? 2;
    // Chunk i: padding of factor * the first tag byte of its nonce (2i)
    // sealed under itself, its length under 2i, its payload under 2i + 1.
    for (let i = 1; i <= count; i++) {
      const padding = factor * gcm(subkey, 2 * i, counterNonce(2 * i), algorithm)[12];
      chunks.push(
        randomBytes(padding),
        gcm(subkey, 2 * i, Buffer.alloc(2), algorithm),
        gcm(subkey, 2 * i + 1, Buffer.alloc(0), algorithm),
      );
    }
  } else {
    return undefined;
  }
  return Buffer.concat(chunks);
}

const counterNonce = (counter) => {
  const nonce = Buffer.alloc(12);
  nonce.writeUIntLE(counter, 0, 6);
  return nonce;
};

function sealWith(spec, key, counter, plaintext) {
  const nonce = Buffer.alloc(spec.nonceLength);
  nonce.writeUIntLE(counter, 0, 6);
  const cipher = spec.seal(key, nonce);
  const sealed = cipher.update(plaintext);
  cipher.final();
  return Buffer.concat([sealed, cipher.getAuthTag()]);
}

// The storm's hostile connections for any chain, by name: each makes the
// bytes of one connection ({ bytes, end | cutAfterMs }, for sendHostile).
// test/support/suites/storm.js sends them, and benchmark/programs/storm-rss.js the
// same against shadowsocks-libev.
export function stormKinds(presets, target, password, wrongPassword) {
  const good = () => clientBytes({ presets, password, target, payload: randomBytes(2048) });
  const kinds = {
    'random bytes': () => ({ bytes: randomBytes(1 + Math.floor(Math.random() * 4096)), end: true }),
    'valid salt or IV, then garbage': () => ({
      bytes: Buffer.concat([good().subarray(0, 32), randomBytes(512)]),
      end: true,
    }),
    'closed half-way': () => {
      const bytes = good();
      return { bytes: bytes.subarray(0, bytes.length >> 1), cutAfterMs: 5 };
    },
  };
  // Each further kind where the chain can make it.
  try {
    const truncated = sealedPlaintext({ presets, password, plaintext: Buffer.from([3, 40, 0x61, 0x62]) });
    kinds['truncated address header'] = () => ({ bytes: truncated, end: true });
  } catch (error) {
    if (!isProtocolError(error)) throw error;
  }
  if (keyIsTheSecret(presets, password, wrongPassword))
    kinds['wrong key'] = () => ({ bytes: clientBytes({ presets, password: wrongPassword, target }), end: true });
  const method = aeadMethod(presets);
  if (method) {
    kinds['one flipped bit in a tag'] = () => {
      const bytes = good();
      bytes[bytes.length - 1 - Math.floor(Math.random() * 16)] ^= 1 << Math.floor(Math.random() * 8);
      return { bytes, end: true };
    };
    kinds['length field over 0x3FFF'] = () => ({
      bytes: sealedLength({ method, password, length: 0x4000 + Math.floor(Math.random() * 0xbfff) }),
      end: true,
    });
  }
  return kinds;
}

// The hostile datagrams of a UDP flood (test/serial/udp-relay-hostile.test.js,
// benchmark/programs/udp-flood-rss.js): 300 of random garbage up to 2 KB,
// one of the largest size, 100 cuts and 100 one-bit flips of `genuine` (a
// datagram the server would relay), and 100 from `foreign()`, a datagram
// sealed under another key.
export const hostileDatagrams = (genuine, foreign) => [
  ...Array.from({ length: 300 }, () => randomBytes(randomInt(0, 2000))),
  randomBytes(65_507),
  ...Array.from({ length: 100 }, () => genuine.subarray(0, randomInt(genuine.length))),
  ...Array.from({ length: 100 }, () => {
    const flipped = Buffer.from(genuine);
    flipped[randomInt(flipped.length)] ^= 1 << randomInt(8);
    return flipped;
  }),
  ...Array.from({ length: 100 }, foreign),
];
