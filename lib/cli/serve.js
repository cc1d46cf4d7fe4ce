// @ts-check
import { readyLine } from '../process/ready-line.js';
import { formatEndpoint, parseEndpoint } from '../relay/endpoint.js';
import { earlySignal, STOP_SIGNALS } from './early-signals.js';
import { inputError } from '../errors.js';

// What the long-running commands (relay server and client, echo, sink) share:
// a HOST:PORT flag read as a usage error, and the contract the runner
// relies on: `listening on HOST:PORT` once ready, exit 0 on SIGINT, SIGTERM
// or SIGHUP.
export function endpointOption(flag, text, { anyPort = false } = {}) {
  const endpoint = parseEndpoint(text, { anyPort });
  if (!endpoint) throw inputError(`${flag} must be HOST:PORT, [IPv6]:PORT or PORT, got ${JSON.stringify(text)}`);
  return endpoint;
}

// A command that listens on --listen until stopped: `start(listen)`
// resolves with { address, close() }. Port 0 takes any free port, and the
// ready line says which, so tests and scripts need no fixed port.
export function registerServer(program, { name, description, start }) {
  program
    .command(name)
    .description(description)
    .requiredOption('--listen <host:port>', 'address to accept connections on')
    .action(async (options) => {
      const listen = endpointOption('--listen', options.listen, { anyPort: true });
      await serve(() => start(listen));
    });
}

// `start` resolves with { address, close() }.
export async function serve(start) {
  let server;
  try {
    server = await start();
  } catch (error) {
    // Anything the system said about the address (in use, not ours, no
    // such host, not permitted) is about what the person typed.
    if (error.syscall) throw inputError(`cannot listen: ${error.message}`);
    throw error;
  }
  // Once: a second signal while it closes (a terminal's Ctrl-C reaches the
  // whole group, and a wrapper may forward the same one) must neither
  // close twice nor kill it the default way.
  let stopping = null;
  const stop = () => {
    stopping ??= Promise.resolve(server.close()).then(() => process.exit(0));
    return stopping;
  };
  // Before the line that says we are ready: whoever reads it may signal at
  // once, and a listener added after it can lose that race.
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  // A signal held while the CLI loaded: asked to stop before it started.
  if (earlySignal()) return stop();
  process.stdout.write(`${readyLine(formatEndpoint(server.address))}\n`);
}
