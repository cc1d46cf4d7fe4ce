// @ts-check
import { registerCiphersCommand } from './ciphers-command.js';
import { registerCompareCommand } from './compare-command.js';
import { registerEnvironmentCommand } from './environment-command.js';
import { registerHistoryCommand } from './history-command.js';
import { registerKeyCommand } from './key-command.js';
import { registerLatencyCommands } from './latency-command.js';
import { registerPresetsCommand } from './presets-command.js';
import { registerRelayCommands } from './relay-command.js';
import { registerReportCommand } from './report-command.js';
import { registerRequestsCommand, registerRunCommand } from './run-command.js';
import { registerHttpTargetCommand } from './http-target-command.js';
import { registerTlsSiteCommand } from './tls-site-command.js';
import { registerPlumbingCommand } from './plumbing-command.js';
import { registerBareRelayCommand } from './bare-relay-command.js';
import { runProgram } from './program.js';
import { registerTrafficCommands } from './traffic-command.js';

export { usageLine } from './program.js';

// Every command. A relay process is started through relay-main.js instead,
// which loads only what a relay runs.
export function main(argv = process.argv) {
  return runProgram((program) => {
    registerRunCommand(program);
    registerRequestsCommand(program);
    registerPresetsCommand(program);
    registerCiphersCommand(program);
    registerRelayCommands(program);
    registerKeyCommand(program);
    registerCompareCommand(program);
    registerReportCommand(program);
    registerHistoryCommand(program);
    registerLatencyCommands(program);
    registerTrafficCommands(program);
    registerHttpTargetCommand(program);
    registerTlsSiteCommand(program);
    registerBareRelayCommand(program);
    registerEnvironmentCommand(program);
    registerPlumbingCommand(program);
  }, argv);
}
