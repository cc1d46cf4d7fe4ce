import { LEGACY_FLAG, legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainNeedsLegacyProvider, chainPasswordProblem, validateChain } from '../presets/index.js';
import { startRelayClient } from '../relay/client.js';
import { createLog, LOG_LEVELS } from '../relay/log.js';
import { DEFAULT_HANDSHAKE_TIMEOUT_MS, startRelayServer } from '../relay/server.js';
import { endpointOption, serve } from './serve.js';
import { usageError } from './usage-error.js';

export function registerRelayCommands(program) {
  const relay = program
    .command('relay')
    .description('run one side of the relay pair that the benchmark measures (for the runner, tests and debugging a case)');

  const common = (command) =>
    command
      .requiredOption('--listen <host:port>', 'address to accept connections on')
      .requiredOption('--key <password>', 'shared password')
      .requiredOption('--presets <json>', 'preset chain as a JSON array, e.g. \'[{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]\'')
      .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, 'info');

  common(relay.command('server').description('decode relay (Shadowsocks) traffic and connect to the target it names'))
    .option('--allow-remote', 'connect to targets that are not on loopback (off: a relay left running is not an open proxy)')
    .option('--handshake-timeout <seconds>', 'close a connection whose address header has not arrived by then', String(DEFAULT_HANDSHAKE_TIMEOUT_MS / 1000))
    .action(async (options) => {
      const settings = relaySettings(options);
      const timeout = Number(options.handshakeTimeout);
      if (!(timeout > 0)) throw usageError(`--handshake-timeout must be a positive number of seconds, got ${JSON.stringify(options.handshakeTimeout)}`);
      await serve(() =>
        startRelayServer({ ...settings, allowRemote: Boolean(options.allowRemote), handshakeTimeoutMs: timeout * 1000 }),
      );
    });

  common(relay.command('client').description('accept plain TCP and carry it through the preset chain to a relay server, addressed to --forward'))
    .requiredOption('--server <host:port>', 'the relay server to connect to')
    .requiredOption('--forward <host:port>', 'the target the relay server should connect to')
    .action(async (options) => {
      const settings = relaySettings(options);
      const server = endpointOption('--server', options.server);
      const forward = endpointOption('--forward', options.forward);
      await serve(() => startRelayClient({ ...settings, server, forward }));
    });
}

function relaySettings(options) {
  if (!LOG_LEVELS.includes(options.logLevel)) {
    throw usageError(`--log-level: unknown level ${JSON.stringify(options.logLevel)}; valid: ${LOG_LEVELS.join(', ')}`);
  }
  const listen = endpointOption('--listen', options.listen);
  if (options.key === '') throw usageError('--key must not be empty');
  const presets = parsePresets(options.presets);
  const keyProblem = chainPasswordProblem(presets, options.key);
  if (keyProblem) throw usageError(`--key: ${keyProblem}`);
  return { listen, password: options.key, presets, log: createLog(options.logLevel) };
}

export function parsePresets(text) {
  let presets;
  try {
    presets = JSON.parse(text);
  } catch (error) {
    throw usageError(`--presets is not valid JSON (${error.message})`);
  }
  const problems = validateChain(presets);
  if (problems.length > 0) {
    throw usageError(`--presets is not a valid chain:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
  }
  if (chainNeedsLegacyProvider(presets)) {
    const status = legacyProviderStatus();
    if (status === 'not-requested') {
      throw usageError(`this chain needs OpenSSL's legacy provider (rc4-md5, bf-cfb): start node with ${LEGACY_FLAG}, e.g. NODE_OPTIONS=${LEGACY_FLAG} cipherbench relay ...`);
    }
    if (status === 'unavailable') {
      throw usageError(`this chain needs OpenSSL's legacy provider (rc4-md5, bf-cfb), and this Node's OpenSSL (${process.versions.openssl}) could not load it even with ${LEGACY_FLAG}`);
    }
  }
  return presets;
}
