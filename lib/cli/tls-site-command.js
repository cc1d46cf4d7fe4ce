import { startTlsSite } from '../traffic/tls-site.js';
import { endpointOption, serve } from './serve.js';

// The site REALITY and ShadowTLS rows borrow a handshake from, as a process
// of its own that the runner starts beside the peer's relays.
export function registerTlsSiteCommand(program) {
  program
    .command('tls-site')
    .description('a TLS 1.3 web site on loopback, for REALITY and ShadowTLS to borrow its handshake')
    .requiredOption('--listen <host:port>', 'address to accept connections on (port 0: any free port)')
    .requiredOption('--cert <file>', "the site's certificate, PEM")
    .requiredOption('--key <file>', "the certificate's private key, PEM")
    .action(async (options) => {
      const listen = endpointOption('--listen', options.listen, { anyPort: true });
      await serve(() => startTlsSite({ ...listen, cert: options.cert, key: options.key }));
    });
}
