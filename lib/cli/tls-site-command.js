// @ts-check
import { readFileSync } from 'node:fs';
import { inputError } from '../errors.js';
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
      const [cert, key] = [readPem('--cert', options.cert), readPem('--key', options.key)];
      await serve(() => startTlsSite({ ...listen, cert, key }));
    });
}

function readPem(flag, file) {
  try {
    return readFileSync(file);
  } catch (error) {
    throw inputError(`${flag} ${file}: cannot read it (${error.code ?? error.message}); give a PEM file`);
  }
}
