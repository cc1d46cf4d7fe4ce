// @ts-check
import { registerBareRelayCommand } from './bare-relay-command.js';
import { runProgram } from './program.js';
import { registerRelayCommands } from './relay-command.js';

// The command line of a relay process (`relay server|client`,
// `bare-relay`), which loads only the relay and the presets its chain
// names: with every command's modules loaded as well (the runner, the
// reports, execa, systeminformation), the same relay code carried about a
// third less on Node 24, and with the whole preset catalogue about 6% less
// (docs/notes/performance.md, "What a relay loads"). bin/cipherbench.js sends
// these commands here before anything else is loaded.
export async function relayMain(argv = process.argv) {
  return runProgram((program) => {
    registerRelayCommands(program);
    registerBareRelayCommand(program);
  }, argv);
}
