import { fileURLToPath } from 'node:url';
import { LEGACY_FLAG, legacyProviderStatus } from '../crypto/legacy-provider.js';
import { describeExit, startProcess } from '../process/processes.js';

// Apart from cipher-ceiling.js, which measures in this process: that file is
// also what the child runs and what `cipherbench ciphers` loads, and neither
// should carry the process contract (execa) on its heap while it measures.
const CEILING_CHILD = fileURLToPath(new URL('./ceiling-child.js', import.meta.url));
const STOPPED_BY = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// Measures chains one after another in a child of their own
// (ceiling-child.js), so this process's event loop stays free while the
// CPU works; with `legacy`, the child starts with the flag that loads
// OpenSSL's legacy provider, which rc4-md5 and bf-cfb need and which node
// loads only when it starts. The first `warmUpSeconds` are spent on the
// first chain unrecorded; with `rounds` and `seed`, the chains are
// interleaved in rounds instead (cipher-rounds.js). onChain(at, round) is
// told as the chain at that index (with rounds: at that position, then
// the round and the chain's index) starts; `signal` stops the child, and the chains it had not reached get
// no row. Resolves with [{ presets, sizes: [{ size, encrypt, decrypt }] }];
// rejects with the child's own words when it failed.
/**
 * @param {object[][]} chains
 * @param {{ sizes?: number[], seconds?: number, warmUpSeconds?: number, rounds?: number, seed?: number, legacy?: boolean, onChain?: (...told: number[]) => void, signal?: AbortSignal }} [options]
 */
export async function measureChainsInChild(
  chains,
  { sizes, seconds, warmUpSeconds = 0, rounds, seed, legacy = false, onChain = () => {}, signal } = {},
) {
  // Already started with the flag and still no provider: a child would be
  // no different.
  if (legacy && legacyProviderStatus() === 'unavailable') {
    throw new Error(`this Node's OpenSSL (${process.versions.openssl}) has no legacy provider to load`);
  }
  const rows = [];
  const stderr = [];
  const onLine = (stream, line) => {
    if (stream === 'stderr') stderr.push(line);
    else if (line.startsWith('{')) {
      const said = JSON.parse(line);
      if (said.measured === undefined) onChain(said.measuring, said.round, said.at);
      else rows.push({ presets: chains[said.measured], sizes: said.sizes });
    }
  };
  const args = [
    ...(legacy ? [LEGACY_FLAG] : []),
    CEILING_CHILD,
    JSON.stringify({ chains, sizes, seconds, warmUpSeconds, rounds, seed }),
  ];
  const child = startProcess('ceiling child', process.execPath, args, { onLine });
  const stop = () => child.stop();
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();
  const exit = await child.exited;
  signal?.removeEventListener('abort', stop);
  // A Ctrl-C reaches the child too, as it does every child in the
  // terminal's process group: what it measured by then stands.
  if (exit.code === 0 || STOPPED_BY.includes(exit.signal)) return rows;
  throw new Error(stderr.join('\n').trim() || `the ceiling child ${describeExit(exit)}`);
}
