import { execFileSync } from 'node:child_process';
import { LEGACY_FLAG, legacyProviderStatus } from '../crypto/legacy-provider.js';
import { newChainPassword, prepareChain } from '../presets/index.js';
import { CLI } from './cli-path.js';

// The cipher's own ceiling: how fast the preset code itself (not raw OpenSSL)
// encodes and decodes in one process, with no sockets. A relay can carry at
// most the slower of the two per core; the gap to the relay's bitrate is what
// the data path costs. Timed in this process's CPU seconds, so a busy
// neighbour on a shared machine slows the clock less than the figure.
export const DEFAULT_SIZES = [1024, 16 * 1024, 64 * 1024];
const BYTES_PER_PASS = 4 * 1024 * 1024;
const TARGET = { host: '127.0.0.1', port: 1083 };

const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

function timed(minSeconds, pass) {
  let bytes = 0;
  const start = cpuSeconds();
  let elapsed = 0;
  do {
    bytes += pass();
    elapsed = cpuSeconds() - start;
  } while (elapsed < minSeconds);
  return { bytes, cpuSeconds: elapsed, bits_per_second: (bytes * 8) / elapsed };
}

export function measureCipherCeiling({ presets, sizes = DEFAULT_SIZES, minSeconds = 0.25 }) {
  const password = newChainPassword(presets) ?? 'cipherbench-ceiling';
  const createPipeline = prepareChain(presets, { password });
  return sizes.map((size) => {
    const plaintext = Buffer.alloc(size, 0x5a);
    const reads = Math.max(1, Math.floor(BYTES_PER_PASS / size));

    // Each pass is a new connection (new salt or IV), as a relay sees it.
    const encrypt = timed(minSeconds, () => {
      const encode = createPipeline('client', { target: TARGET }).encoder(() => {});
      for (let i = 0; i < reads; i++) encode(plaintext);
      return reads * size;
    });

    // The decoder is fed what the encoder produced, one read per encoded read.
    const wire = [];
    let pending = [];
    const encode = createPipeline('client', { target: TARGET }).encoder((data) => pending.push(data));
    for (let i = 0; i < reads; i++) {
      encode(plaintext);
      wire.push(Buffer.concat(pending));
      pending = [];
    }
    // Every pass replays the same wire, so each decodes in a chain of its
    // own: a replay filter (SIP022's salt pool) sees each salt once.
    const decrypt = timed(minSeconds, () => {
      let bytes = 0;
      const decode = prepareChain(presets, { password })('server', { onTarget() {} }).decoder((data) => {
        bytes += data.length;
      });
      for (const read of wire) decode(read);
      return bytes;
    });
    return { size, encrypt, decrypt };
  });
}

// rc4-md5 and bf-cfb need OpenSSL's legacy provider, which node loads only
// when it starts with the flag: `cipherbench ciphers` in a child started
// with it measures them. Returns that command's JSON rows, one per method
// ({ method, sizes: [{ size, encrypt, decrypt }] }); throws with the
// child's own words when it could not.
export function measureMethodsInLegacyChild(methods, { sizes, seconds }) {
  // Already started with the flag and still no provider: a child would be
  // no different, and would itself reach for a child, and so on.
  if (legacyProviderStatus() === 'unavailable') {
    throw new Error(`this Node's OpenSSL (${process.versions.openssl}) has no legacy provider to load`);
  }
  const args = [LEGACY_FLAG, CLI, 'ciphers', '--json', '--size', sizes.join(','), '--time', String(seconds), '--methods', methods.join(',')];
  let out;
  try {
    out = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new Error(error.stderr?.trim() || error.message, { cause: error });
  }
  return JSON.parse(out);
}
