// @ts-check
import { startBareRelay } from '../relay/bare.js';
import { endpointOption, serve } from './serve.js';

// One half of the bare Node relay pair (the `bare-node` reference row),
// as a process of its own, as the runner starts our relays.
export function registerBareRelayCommand(program) {
  program
    .command('bare-relay')
    .description(
      'the least a Node relay does, for the bare-node reference row: accept, connect to --forward, pipe both ways (with --udp, datagrams too); no protocol, loopback yardstick only',
    )
    .requiredOption('--listen <host:port>', 'address to accept connections on (port 0: any free port)')
    .requiredOption('--forward <host:port>', 'where every connection and datagram goes')
    .option('--udp', 'forward UDP datagrams on the same address too')
    .action(async (options) => {
      const listen = endpointOption('--listen', options.listen, { anyPort: true });
      const forward = endpointOption('--forward', options.forward);
      await serve(() => startBareRelay({ listen, forward, udp: Boolean(options.udp) }));
    });
}
