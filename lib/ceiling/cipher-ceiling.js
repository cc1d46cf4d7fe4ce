import { newChainPassword } from '../chain/requirements.js';
import { prepareChain } from '../chain/pipeline.js';
import { CATALOGUE } from '../presets/index.js';

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

// Runs prepare() untimed and run(prepared) timed, until run has had
// minSeconds of CPU; run returns the plaintext bytes it carried.
function timed(minSeconds, prepare, run) {
  let bytes = 0;
  let elapsed = 0;
  do {
    const prepared = prepare();
    const start = cpuSeconds();
    bytes += run(prepared);
    elapsed += cpuSeconds() - start;
  } while (elapsed < minSeconds);
  return { bytes, cpuSeconds: elapsed, bits_per_second: (bytes * 8) / elapsed };
}

const HANDSHAKE_DATA = Buffer.from('cipherbench ceiling');

// A client pipeline and a server pipeline joined back to back, as two relays
// are over a socket, so that presets which answer (connection.reply) or hold
// data until answered finish their handshake before anything is timed: the
// connection opens (encode of nothing, as the relay client does) and carries
// a few bytes each way. Then the client's wire goes wherever `wire` says.
function connectedPair(createPipeline) {
  const client = createPipeline('client', { target: TARGET });
  const server = createPipeline('server', { onTarget() {} });
  const pair = { decoded: 0, wire: null };
  const clientDecode = client.decoder(() => {});
  const serverEncode = server.encoder((data) => clientDecode(data));
  pair.serverDecode = server.decoder((data) => {
    pair.decoded += data.length;
  });
  pair.clientEncode = client.encoder((data) => (pair.wire ? pair.wire(data) : pair.serverDecode(data)));
  pair.clientEncode(Buffer.alloc(0));
  pair.clientEncode(HANDSHAKE_DATA);
  serverEncode(HANDSHAKE_DATA);
  pair.decoded = 0;
  return pair;
}

// The ceiling of whatever createPipeline (prepareChain's result) builds.
export function measurePipelineCeiling(createPipeline, { sizes = DEFAULT_SIZES, minSeconds = 0.25 } = {}) {
  return sizes.map((size) => {
    const plaintext = Buffer.alloc(size, 0x5a);
    const reads = Math.max(1, Math.floor(BYTES_PER_PASS / size));

    // Each pass is a new connection (new salt or IV), as a relay sees it.
    const encrypt = timed(
      minSeconds,
      () => {
        const pair = connectedPair(createPipeline);
        pair.wire = () => {};
        return pair;
      },
      (pair) => {
        for (let i = 0; i < reads; i++) pair.clientEncode(plaintext);
        return reads * size;
      },
    );

    // The server decodes what its own client encoded, one read per encoded read.
    const decrypt = timed(
      minSeconds,
      () => {
        const pair = connectedPair(createPipeline);
        const wire = [];
        let pending = [];
        pair.wire = (data) => pending.push(data);
        for (let i = 0; i < reads; i++) {
          pair.clientEncode(plaintext);
          wire.push(pending.length === 1 ? pending[0] : Buffer.concat(pending));
          pending = [];
        }
        return { pair, wire };
      },
      ({ pair, wire }) => {
        for (const read of wire) pair.serverDecode(read);
        return pair.decoded;
      },
    );
    return { size, encrypt, decrypt };
  });
}

export function measureCipherCeiling({ presets, sizes = DEFAULT_SIZES, minSeconds = 0.25 }) {
  // A chain with a key format of its own (Shadowsocks 2022) needs a key of it.
  const password = newChainPassword(CATALOGUE, presets) ?? 'cipherbench-ceiling';
  return measurePipelineCeiling(prepareChain(CATALOGUE, presets, { password }), { sizes, minSeconds });
}
