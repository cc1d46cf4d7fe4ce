import { coefficientOfVariation, max, median, min, seededRandom } from '../statistics/summaries.js';
import { measureCipherCeiling } from './cipher-ceiling.js';

// The ceilings of several chains, fair to each whatever order they are
// listed in. Measured one after another, the first chain read up to a
// quarter lower than the same chain measured second (JIT and OpenSSL's
// first use of a cipher), and a neighbour's load drifting over the minutes
// falls on whichever chain runs then. So: every chain and size is warmed up
// unrecorded, then measured in `rounds` rounds, each in a new order drawn
// from `seed`, `seconds` of CPU per chain, size and direction split across
// them; each direction's figure is the median of the rounds, with their
// spread. onStep(round, position, at) is told as a round's chain (the
// chain at index `at`) starts, at `position` in the round's order, and
// onWarmUp(at) as a chain's warm-up starts.
// Between steps it lets the event loop run, so a signal's handler can
// abort `signal`: the rounds stop there, and each chain's figures are the
// rounds it had (none: sizes null).
// Resolves with [{ presets, sizes: [{ size, encrypt, decrypt }] }] where
// encrypt and decrypt are { bits_per_second (median), min, max, cv,
// rounds: [bits_per_second, ...] in round order }.
export async function measureCeilingRounds(
  chains,
  { sizes, seconds, rounds = 5, seed, onStep = () => {}, onWarmUp = () => {}, signal },
) {
  const perRound = seconds / rounds;
  const measured = chains.map(() => sizes.map(() => ({ encrypt: [], decrypt: [] })));
  const random = seededRandom(seed);
  // As long as a round's slice, and no shorter than 50 ms: a shorter
  // warm-up left the first round of each chain visibly low.
  const steps = [
    ...chains.map((presets, at) => () => {
      onWarmUp(at);
      measureCipherCeiling({ presets, sizes, minSeconds: Math.max(0.05, perRound) });
    }),
    ...Array.from({ length: rounds }, (_, round) =>
      shuffled(chains.length, random).map((at, position) => () => {
        onStep(round, position, at);
        for (const [i, { encrypt, decrypt }] of measureCipherCeiling({
          presets: chains[at],
          sizes,
          minSeconds: perRound,
        }).entries()) {
          measured[at][i].encrypt.push(encrypt.bits_per_second);
          measured[at][i].decrypt.push(decrypt.bits_per_second);
        }
      }),
    ).flat(),
  ];
  for (const step of steps) {
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) break;
    step();
  }
  return chains.map((presets, at) => ({
    presets,
    sizes:
      measured[at][0].encrypt.length === 0
        ? null
        : sizes.map((size, i) => ({
            size,
            encrypt: spread(measured[at][i].encrypt),
            decrypt: spread(measured[at][i].decrypt),
          })),
  }));
}

// A seed for a run that was given none: printed with the figures, so the
// same order can be asked for again.
export const newSeed = () => Math.floor(Math.random() * 2 ** 31);

function spread(values) {
  return {
    bits_per_second: median(values),
    min: min(values),
    max: max(values),
    cv: coefficientOfVariation(values),
    rounds: values,
  };
}

// 0..count-1 in an order drawn from `random` (Fisher-Yates).
function shuffled(count, random) {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
