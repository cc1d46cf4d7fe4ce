// @ts-check
import { readFileSync } from 'node:fs';
import { runAgainWith } from '../process/run-again.js';
import { RAW_COMMAND_LINE } from './raw-argument.js';
import { RELAY_NODE_FLAGS } from '../relay/node-flags.js';
import { earlySignal, releaseSignals, STOP_SIGNALS } from './early-signals.js';

// A relay's memory bound depends on Node flags (lib/relay/node-flags.js)
// that only take effect when node starts: set later, V8 keeps the young
// generation it was started with. The runner passes them; a person who
// types `cipherbench relay server ...` does not, and got a server that
// grows by tens of MB more under a storm. So the bin starts the relay
// again, in a node with the flags, and stands aside (run-again.js). Flags
// the person gave (on the command line or in NODE_OPTIONS) are theirs:
// only missing ones are added, and with none missing there is one process.

const flagName = (flag) => flag.replace(/^--/, '').split('=')[0].replaceAll('_', '-');

// The relay flags this process lacks, for a `relay` command; else none.
export function missingRelayFlags({
  argv = process.argv,
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
} = {}) {
  if (argv[2] !== 'relay') return [];
  const given = new Set(
    [...execArgv, ...nodeOptions.split(/\s+/)].filter((flag) => flag.startsWith('--')).map(flagName),
  );
  return RELAY_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

export function runRelayWithFlags(flags) {
  // Asked to stop before it started: a relay then exits 0 (serve.js).
  if (earlySignal()) return;
  // Passed on from here: a terminal's signal reaches the relay too (the
  // same process group), and a relay stops once however often it is told.
  releaseSignals();
  runAgainWith(flags, { signals: STOP_SIGNALS, env: rawCommandLine() });
}

// An argument that is not UTF-8 (a key typed in Latin-1) reaches the
// relay as bytes only through the environment (raw-argument.js).
function rawCommandLine() {
  if (!process.argv.some((arg) => arg.includes('\uFFFD'))) return process.env;
  try {
    return { ...process.env, [RAW_COMMAND_LINE]: readFileSync('/proc/self/cmdline').toString('base64') };
  } catch {
    return process.env;
  }
}
