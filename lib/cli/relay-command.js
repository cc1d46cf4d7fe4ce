import { LEGACY_FLAG, legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainIsAuthenticated, chainNeedsLegacyProvider, chainPasswordProblem } from '../chain/requirements.js';
import { validateChain } from '../chain/validate.js';
import { startRelayClient } from '../relay/client.js';
import { createLog, LOG_LEVELS } from '../relay/log.js';
import { isLoopbackHost } from '../relay/loopback.js';
import { limitOldGenerationGrowth } from '../relay/node-flags.js';
import { DEFAULT_HANDSHAKE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, startRelayServer } from '../relay/server.js';
import { rawOptionValue } from './raw-argument.js';
import { endpointOption, serve } from './serve.js';
import { inputError } from '../errors.js';

// Timeouts a person may set: long enough to be one, short enough that
// setTimeout keeps it (Node turns anything over 2^31 ms into 1 ms).
const SECONDS = { min: 0.1, max: 86_400 };
const MAX_CONNECTIONS = 1_000_000;

const SERVER_HELP = `
Security: a chain with a stream cipher (ss-stream-cipher) is unauthenticated.
Nothing detects a changed byte: whoever sees a connection can flip bits of
its ciphertext to rewrite the target port, and this server follows. The salt
filter refuses a connection sent twice, not a rewritten one it never saw.
Such a chain is served beyond loopback only with --allow-unauthenticated;
use ss-aead-cipher on a network. See docs/security.md.`;

export function registerRelayCommands(program) {
  const relay = program
    .command('relay')
    .description('run one side of the relay pair that the benchmark measures (for the runner, tests and debugging a case)');

  const common = (command) =>
    command
      .requiredOption('--listen <host:port>', 'address to accept connections on (port 0: any free port)')
      .requiredOption('--key <password>', 'shared password')
      .requiredOption('--presets <json>', 'preset chain as a JSON array, e.g. \'[{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]\'')
      .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, 'info');

  common(relay.command('server').description('decode relay (Shadowsocks) traffic and connect to the target it names'))
    .option('--allow-remote', 'connect to targets that are not on loopback (off: a relay left running is not an open proxy)')
    .option('--allow-unauthenticated', 'listen beyond loopback with a chain that has no integrity (a stream cipher): see below')
    .option('--handshake-timeout <seconds>', 'reset a connection that has not named its target by then (and one that broke the protocol, read until then)', String(DEFAULT_HANDSHAKE_TIMEOUT_MS / 1000))
    .option('--idle-timeout <seconds>', 'reset a relayed connection after this long without a byte either way', String(DEFAULT_IDLE_TIMEOUT_MS / 1000))
    .option('--max-connections <count>', 'refuse client connections beyond this many at once', String(DEFAULT_MAX_CONNECTIONS))
    .addHelpText('after', SERVER_HELP)
    .action(async (options) => {
      const settings = relaySettings(options);
      const handshakeTimeoutMs = secondsOption('--handshake-timeout', options.handshakeTimeout) * 1000;
      const idleTimeoutMs = secondsOption('--idle-timeout', options.idleTimeout) * 1000;
      const maxConnections = Number(options.maxConnections);
      if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > MAX_CONNECTIONS) {
        throw inputError(`--max-connections must be a whole number from 1 to ${MAX_CONNECTIONS}, got ${JSON.stringify(options.maxConnections)}`);
      }
      if (!isLoopbackHost(settings.listen.host) && !chainIsAuthenticated(settings.presets) && !options.allowUnauthenticated) {
        throw inputError(
          `--listen ${options.listen} is not loopback and this chain is unauthenticated (anyone on the path can redirect its connections by flipping bits): use ss-aead-cipher, or pass --allow-unauthenticated`,
        );
      }
      limitOldGenerationGrowth();
      await serve(() =>
        startRelayServer({ ...settings, allowRemote: Boolean(options.allowRemote), handshakeTimeoutMs, idleTimeoutMs, maxConnections }),
      );
    });

  common(relay.command('client').description('accept plain TCP and carry it through the preset chain to a relay server, addressed to --forward'))
    .requiredOption('--server <host:port>', 'the relay server to connect to')
    .requiredOption('--forward <host:port>', 'the target the relay server should connect to')
    .action(async (options) => {
      const settings = relaySettings(options);
      const server = endpointOption('--server', options.server);
      const forward = endpointOption('--forward', options.forward);
      limitOldGenerationGrowth();
      await serve(() => startRelayClient({ ...settings, server, forward }));
    });
}

function relaySettings(options) {
  if (!LOG_LEVELS.includes(options.logLevel)) {
    throw inputError(`--log-level: unknown level ${JSON.stringify(options.logLevel)}; valid: ${LOG_LEVELS.join(', ')}`);
  }
  const listen = endpointOption('--listen', options.listen, { anyPort: true });
  if (options.key === '') throw inputError('--key must not be empty');
  const presets = parsePresets(options.presets);
  const keyProblem = chainPasswordProblem(presets, options.key);
  if (keyProblem) throw inputError(`--key: ${keyProblem}`);
  return { listen, password: rawOptionValue('--key', options.key), presets, log: createLog(options.logLevel) };
}

function secondsOption(flag, text) {
  const seconds = Number(text);
  if (!(seconds >= SECONDS.min && seconds <= SECONDS.max)) {
    throw inputError(`${flag} must be a number of seconds from ${SECONDS.min} to ${SECONDS.max} (one day), got ${JSON.stringify(text)}`);
  }
  return seconds;
}

export function parsePresets(text) {
  let presets;
  try {
    presets = JSON.parse(text);
  } catch (error) {
    throw inputError(`--presets is not valid JSON (${error.message})`);
  }
  const problems = validateChain(presets);
  if (problems.length === 1) throw inputError(`--presets is not a valid chain: ${problems[0].field}: ${problems[0].message}`);
  if (problems.length > 1) {
    throw inputError(`--presets is not a valid chain:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
  }
  if (chainNeedsLegacyProvider(presets)) {
    const status = legacyProviderStatus();
    if (status === 'not-requested') {
      throw inputError(`this chain needs OpenSSL's legacy provider (rc4-md5, bf-cfb): start node with ${LEGACY_FLAG}, e.g. NODE_OPTIONS=${LEGACY_FLAG} cipherbench relay ...`);
    }
    if (status === 'unavailable') {
      throw inputError(`this chain needs OpenSSL's legacy provider (rc4-md5, bf-cfb), and this Node's OpenSSL (${process.versions.openssl}) could not load it even with ${LEGACY_FLAG}`);
    }
  }
  return presets;
}
