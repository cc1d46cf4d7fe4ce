import { measureCipherCeiling } from './cipher-ceiling.js';

// `node [--openssl-legacy-provider] ceiling-child.js JSON`, started by
// measureChainsInChild() (cipher-ceiling.js): measures the chains of JSON
// ({ chains, sizes, seconds, warmUpSeconds }) one after another and says,
// one JSON line each on stdout, { measuring: index } as a chain starts and
// { measured: index, sizes } once it is done. On a failure it prints the
// error's message first, then its stack, and exits 1.
const { chains, sizes, seconds, warmUpSeconds } = JSON.parse(process.argv[2]);
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

try {
  // The first chain measured in a fresh process came out a third slower
  // than the same chain measured again (JIT, OpenSSL's first use of a
  // cipher): a short unrecorded pass first keeps that off it.
  if (warmUpSeconds > 0) measureCipherCeiling({ presets: chains[0], sizes, minSeconds: warmUpSeconds });
  for (const [at, presets] of chains.entries()) {
    say({ measuring: at });
    say({ measured: at, sizes: measureCipherCeiling({ presets, sizes, minSeconds: seconds }) });
  }
} catch (error) {
  process.stderr.write(`${error.message}\n${error.stack}\n`);
  process.exitCode = 1;
}
