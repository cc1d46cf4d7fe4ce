import { readFileSync } from 'node:fs';
import { collectEnvironment } from '../runner/environment.js';
import { findProgram } from '../runner/programs.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

// What a report's header says of this machine, as JSON: a run with
// --remote asks the server's host this over SSH, so the report names both.
export function registerEnvironmentCommand(program) {
  program
    .command('environment')
    .description('print this machine\'s environment (CPU, memory, OS, Node.js, iperf3) as JSON, as a report\'s header records it')
    .action(async () => {
      const environment = await collectEnvironment({ iperf3Path: await findProgram('iperf3') });
      process.stdout.write(`${JSON.stringify({ cipherbench: version, ...environment }, null, 2)}\n`);
    });
}
