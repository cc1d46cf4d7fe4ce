import { measureCipherCeiling } from './cipher-ceiling.js';
import { measureCeilingRounds } from './cipher-rounds.js';

// `node [--openssl-legacy-provider] ceiling-child.js JSON`, started by
// measureChainsInChild() (cipher-ceiling.js): measures the chains of JSON
// ({ chains, sizes, seconds, warmUpSeconds }) one after another and says,
// one JSON line each on stdout, { measuring: index } as a chain starts and
// { measured: index, sizes } once it is done. On a failure it prints the
// error's message first, then its stack, and exits 1.
// With rounds and seed in JSON, the chains are measured as
// measureCeilingRounds does (cipher-rounds.js), interleaved, and each is
// said once all rounds are done; { measuring, round, at } names the chain's
// index (`at`) beside its position in the round.
const { chains, sizes, seconds, warmUpSeconds, rounds, seed } = JSON.parse(process.argv[2]);
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

try {
  if (rounds) {
    const rows = await measureCeilingRounds(chains, {
      sizes,
      seconds,
      rounds,
      seed,
      onStep: (round, position, at) => say({ measuring: position, round, at }),
    });
    for (const [at, row] of rows.entries()) say({ measured: at, sizes: row.sizes });
  } else {
    measureOneByOne();
  }
} catch (error) {
  process.stderr.write(`${error.message}\n${error.stack}\n`);
  process.exitCode = 1;
}

function measureOneByOne() {
  // The first chain measured in a fresh process came out a third slower
  // than the same chain measured again (JIT, OpenSSL's first use of a
  // cipher): a short unrecorded pass first keeps that off it.
  if (warmUpSeconds > 0) measureCipherCeiling({ presets: chains[0], sizes, minSeconds: warmUpSeconds });
  for (const [at, presets] of chains.entries()) {
    say({ measuring: at });
    say({ measured: at, sizes: measureCipherCeiling({ presets, sizes, minSeconds: seconds }) });
  }
}
