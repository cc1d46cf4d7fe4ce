import { legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainNeedsLegacyProvider } from '../chain/requirements.js';
import { chainTransport } from '../chain/transport.js';
import { measureChainsInChild } from './ceilings-in-child.js';
import { CATALOGUE } from '../presets/index.js';

// The cipher ceiling of every distinct chain a run measures, taken before
// any relay starts so nothing else competes for the CPU. One read size,
// 64 KiB (the largest read a Node socket hands a relay), and a fifth of a
// CPU second per direction, split over ROUNDS interleaved rounds
// (cipher-rounds.js) so that a burst of other work lands on one round of
// a chain and shows as its spread, not as its figure: about two thirds of
// a second a chain, its warm-up included.
const SIZE = 64 * 1024;
const MIN_SECONDS = 0.2;
const ROUNDS = 3;
// The rounds' order: fixed, so two runs measure alike.
const SEED = 1;

const keyOf = (presets) => JSON.stringify(presets);

// Resolves with a Map from a chain's JSON to { ceiling: { encryptBps,
// decryptBps, size } } or { reason } when it could not be measured.
// onChain(presets, position, total) is told as each chain starts; `signal`
// stops the measuring (the rest get no ceiling). The chains are measured
// in a child, so the run's event loop (a Ctrl-C, the progress line) is
// never held up by them.
/**
 * @param {object[][]} chains
 * @param {{ onChain?: (presets: object[], position: number, count: number) => void, signal?: AbortSignal }} [options]
 */
export async function measureChainCeilings(chains, { onChain = () => {}, signal } = {}) {
  const ceilings = new Map();
  // A transport (tls, ws, httpupgrade) works inside the relay's socket,
  // which the in-process measurement has none of: its figure would be the
  // rest of the chain's alone, and read as the whole.
  const all = [...new Map(chains.map((presets) => [keyOf(presets), presets])).values()];
  for (const presets of all.filter((presets) => chainTransport(CATALOGUE, presets))) {
    ceilings.set(keyOf(presets), {
      reason: `its ${chainTransport(CATALOGUE, presets)} transport works in the relay's socket, outside the in-process measurement`,
    });
  }
  const distinct = all.filter((presets) => !chainTransport(CATALOGUE, presets));
  // A chain needing the legacy provider is measured in a child started
  // with it, all such chains in one child, after the others.
  const legacy =
    legacyProviderStatus() === 'loaded'
      ? []
      : distinct.filter((presets) => chainNeedsLegacyProvider(CATALOGUE, presets));
  const groups = [
    { chains: distinct.filter((presets) => !legacy.includes(presets)), legacy: false },
    { chains: legacy, legacy: true },
  ];
  let told = 0;
  for (const group of groups) {
    if (group.chains.length === 0 || signal?.aborted) continue;
    const first = told;
    // Each chain is announced once, as its first round starts.
    const onStart = (position, round, at) => {
      if (round === 0) onChain(group.chains[at], first + position + 1, distinct.length);
    };
    told += group.chains.length;
    try {
      const rows = await measureChainsInChild(group.chains, {
        sizes: [SIZE],
        seconds: MIN_SECONDS,
        rounds: ROUNDS,
        seed: SEED,
        legacy: group.legacy,
        onChain: onStart,
        signal,
      });
      // A chain stopped before its first round has no figure.
      for (const row of rows.filter(({ sizes }) => sizes))
        ceilings.set(keyOf(row.presets), { ceiling: fromRows(row.sizes) });
    } catch (error) {
      // Without the legacy provider these chains cannot be measured; any
      // other chain failing is a bug, and says so loudly.
      if (!group.legacy) throw error;
      const reason = `needs OpenSSL's legacy provider, which could not be loaded: ${error.message.split('\n')[0]}`;
      for (const presets of group.chains) ceilings.set(keyOf(presets), { reason });
    }
  }
  return ceilings;
}

export function ceilingFor(ceilings, presets) {
  return ceilings.get(keyOf(presets)) ?? null;
}

// The medians of the rounds, and each direction's min and max over them.
function fromRows([{ size, encrypt, decrypt }]) {
  return {
    encryptBps: encrypt.bits_per_second,
    decryptBps: decrypt.bits_per_second,
    size,
    rounds: encrypt.rounds.length,
    encryptMinBps: encrypt.min,
    encryptMaxBps: encrypt.max,
    decryptMinBps: decrypt.min,
    decryptMaxBps: decrypt.max,
  };
}
