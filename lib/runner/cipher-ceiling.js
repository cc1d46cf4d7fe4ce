import { prepareChain } from '../presets/index.js';

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
  const createPipeline = prepareChain(presets, { password: 'cipherbench-ceiling' });
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
    const decrypt = timed(minSeconds, () => {
      let bytes = 0;
      const decode = createPipeline('server', { onTarget() {} }).decoder((data) => {
        bytes += data.length;
      });
      for (const read of wire) decode(read);
      return bytes;
    });
    return { size, encrypt, decrypt };
  });
}
