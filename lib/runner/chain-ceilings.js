import { setImmediate as nextTurn } from 'node:timers/promises';
import { legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainNeedsLegacyProvider } from '../presets/index.js';
import { measureChainsInLegacyChild, measureCipherCeiling } from './cipher-ceiling.js';

// The cipher ceiling of every distinct chain a run measures, taken before
// any relay starts so nothing else competes for the CPU. One read size,
// 64 KiB (the largest read a Node socket hands a relay), and a fifth of a
// CPU second per direction: about half a second a chain.
const SIZE = 64 * 1024;
const MIN_SECONDS = 0.2;
// The first chain measured in a fresh process came out a third slower than
// the same chain measured again (JIT, OpenSSL's first use of a cipher): a
// short unrecorded pass first keeps that off whichever chain comes first.
const WARM_UP_SECONDS = 0.1;

const keyOf = (presets) => JSON.stringify(presets);

// Resolves with a Map from a chain's JSON to { ceiling: { encrypt_bps,
// decrypt_bps, size } } or { reason } when it could not be measured.
// onChain(presets, position, total) is told before each chain; `signal`
// stops between chains (the rest get no ceiling).
export async function measureChainCeilings(chains, { onChain = () => {}, signal } = {}) {
  const distinct = [...new Map(chains.map((presets) => [keyOf(presets), presets])).values()];
  const ceilings = new Map();
  // A chain needing the legacy provider is measured by `cipherbench ciphers
  // --chain` in a child started with it, all such chains in one child.
  const inChild = legacyProviderStatus() === 'loaded' ? [] : distinct.filter(chainNeedsLegacyProvider);
  let fromChild = null;
  let childFailure = null;
  const first = distinct.find((presets) => !inChild.includes(presets));
  if (first && !signal?.aborted) measureCipherCeiling({ presets: first, sizes: [SIZE], minSeconds: WARM_UP_SECONDS });
  for (const [position, presets] of distinct.entries()) {
    if (signal?.aborted) break;
    onChain(presets, position + 1, distinct.length);
    // Lets a Ctrl-C land between chains: each measurement holds the thread.
    await nextTurn();
    if (!inChild.includes(presets)) {
      ceilings.set(keyOf(presets), { ceiling: fromRows(measureCipherCeiling({ presets, sizes: [SIZE], minSeconds: MIN_SECONDS })) });
      continue;
    }
    if (!fromChild && !childFailure) {
      try {
        fromChild = measureChainsInLegacyChild(inChild, { sizes: [SIZE], seconds: MIN_SECONDS });
      } catch (error) {
        childFailure = `needs OpenSSL's legacy provider, which could not be loaded: ${error.message.split('\n')[0]}`;
      }
    }
    const row = fromChild?.find((entry) => keyOf(entry.presets) === keyOf(presets));
    ceilings.set(keyOf(presets), row ? { ceiling: fromRows(row.sizes) } : { reason: childFailure ?? 'no ceiling reported for this chain' });
  }
  return ceilings;
}

export function ceilingFor(ceilings, presets) {
  return ceilings.get(keyOf(presets)) ?? null;
}

function fromRows([row]) {
  return { encrypt_bps: row.encrypt.bits_per_second, decrypt_bps: row.decrypt.bits_per_second, size: row.size };
}
