// @ts-check
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

// What a report's header says of this machine, as JSON: a run with
// --remote asks the server's host this over SSH, so the report names both.
export function registerEnvironmentCommand(program) {
  program
    .command('environment')
    .description(
      "print this machine's environment (CPU, memory, OS, Node.js, iperf3) as JSON, as a report's header records it",
    )
    .action(async () => {
      // Loaded here, not with the CLI: systeminformation is the largest
      // module there is, and every relay process starts through this CLI,
      // where a bigger heap makes each of the many full GCs that its
      // buffers' external memory triggers slower (measured: 8% of a relay's
      // CPU in GC with it loaded, 3% without).
      const [{ collectEnvironment }, { findProgram }] = await Promise.all([
        import('../runner/environment.js'),
        import('../process/programs.js'),
      ]);
      const environment = await collectEnvironment({ iperf3Path: await findProgram('iperf3') });
      process.stdout.write(`${JSON.stringify({ cipherbench: version, ...environment }, null, 2)}\n`);
    });
}
