// @ts-check
import { LEGACY_FLAG, legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainIsAuthenticated, chainNeedsLegacyProvider, chainPasswordProblem } from '../chain/requirements.js';
import { validateChain } from '../chain/validate.js';
import { loadCatalogue, PRESET_NAMES } from '../presets/registry.js';
import { startRelayClient } from '../relay/client.js';
import { INBOUND_KINDS } from '../relay/inbounds/index.js';
import { createLog, LOG_LEVELS } from '../relay/log.js';
import { isLoopbackHost } from '../relay/loopback.js';
import {
  DEFAULT_HANDSHAKE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  startRelayServer,
} from '../relay/server.js';
import { rawOptionValue } from './raw-argument.js';
import { udpLimits, udpOptions, withUdp } from './relay-udp-options.js';
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
    .description(
      'run one side of the relay pair that the benchmark measures (for the runner, tests and debugging a case)',
    );

  const common = (command) =>
    command
      .requiredOption('--listen <host:port>', 'address to accept connections on (port 0: any free port)')
      .requiredOption('--key <password>', 'shared password')
      .requiredOption(
        '--presets <json>',
        'preset chain as a JSON array, e.g. \'[{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]\'',
      )
      .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, 'info');

  const server = common(
    relay.command('server').description('decode relay (Shadowsocks) traffic and connect to the target it names'),
  )
    .option(
      '--allow-remote',
      'connect to targets that are not on loopback (off: a relay left running is not an open proxy)',
    )
    .option(
      '--allow-unauthenticated',
      'listen beyond loopback with a chain that has no integrity (a stream cipher): see below',
    )
    .option(
      '--handshake-timeout <seconds>',
      'reset a connection that has not named its target by then (and one that broke the protocol, read until then)',
      String(DEFAULT_HANDSHAKE_TIMEOUT_MS / 1000),
    )
    .option(
      '--idle-timeout <seconds>',
      'reset a relayed connection after this long without a byte either way',
      String(DEFAULT_IDLE_TIMEOUT_MS / 1000),
    )
    .option(
      '--max-connections <count>',
      'refuse client connections beyond this many at once',
      String(DEFAULT_MAX_CONNECTIONS),
    )
    .addHelpText('after', SERVER_HELP);
  udpOptions(server, 'server').action(async (options) => {
    const settings = await relaySettings(options);
    const handshakeTimeoutMs = secondsOption('--handshake-timeout', options.handshakeTimeout) * 1000;
    const idleTimeoutMs = secondsOption('--idle-timeout', options.idleTimeout) * 1000;
    const maxConnections = decimal(options.maxConnections);
    if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > MAX_CONNECTIONS) {
      throw inputError(
        `--max-connections must be a whole number from 1 to ${MAX_CONNECTIONS}, got ${JSON.stringify(options.maxConnections)}`,
      );
    }
    if (
      !isLoopbackHost(settings.listen.host) &&
      !chainIsAuthenticated(settings.catalogue, settings.presets) &&
      !options.allowUnauthenticated
    ) {
      throw inputError(
        `--listen ${options.listen} is not loopback and this chain is unauthenticated (anyone on the path can redirect its connections by flipping bits): use ss-aead-cipher, or pass --allow-unauthenticated`,
      );
    }
    const allowRemote = Boolean(options.allowRemote);
    const udp = withUdp(options, settings, 'server');
    await serve(() =>
      udp(() => startRelayServer({ ...settings, allowRemote, handshakeTimeoutMs, idleTimeoutMs, maxConnections }), {
        allowRemote,
      }),
    );
  });

  const client = common(
    relay
      .command('client')
      .description(
        'accept connections (and UDP with --udp) and carry them through the preset chain to a relay server: to --forward (tunnel), or where each one asks (socks5, http)',
      ),
  )
    .requiredOption('--server <host:port>', 'the relay server to connect to')
    .option(
      '--inbound <kind>',
      `how applications connect: ${INBOUND_KINDS.join(', ')} (tunnel: every connection to --forward; socks5: SOCKS5 CONNECT; http: an HTTP proxy, CONNECT and plain)`,
      'tunnel',
    )
    .option('--forward <host:port>', 'with --inbound tunnel: the target the relay server should connect to')
    .option(
      '--inbound-user <name>',
      'with --inbound socks5 or http: the username applications must give (RFC 1929, Proxy-Authorization)',
    )
    .option('--inbound-password <password>', 'with --inbound-user: the password that goes with it');
  udpOptions(client, 'client').action(async (options) => {
    const settings = await relaySettings(options);
    const server = endpointOption('--server', options.server);
    const { inbound, forward, inboundAuth } = inboundSettings(options);
    if (options.udp && inbound === 'http')
      throw inputError(
        '--udp goes with --inbound tunnel (a UDP port forward) or socks5 (UDP ASSOCIATE): an HTTP proxy carries no datagrams',
      );
    // The socks5 inbound's UDP is UDP ASSOCIATE, on sockets of its own;
    // the tunnel's is a port forward beside the TCP one.
    const udpAssociate = options.udp && inbound === 'socks5' ? udpLimits(options, settings) : null;
    const udp = udpAssociate ? (startTcp) => startTcp() : withUdp(options, settings, 'client');
    await serve(() =>
      udp(() => startRelayClient({ ...settings, server, forward, inbound, inboundAuth, udpAssociate }), {
        server,
        forward,
      }),
    );
  });
}

// The inbound and what it needs: a tunnel its --forward target, the others
// none, and a username and password together or not at all (RFC 1929 caps
// each at 255 bytes).
function inboundSettings(options) {
  const inbound = options.inbound;
  if (!INBOUND_KINDS.includes(inbound))
    throw inputError(`--inbound: unknown kind ${JSON.stringify(inbound)}; valid: ${INBOUND_KINDS.join(', ')}`);
  if (inbound === 'tunnel' && options.forward === undefined)
    throw inputError(
      '--forward <host:port> is required with --inbound tunnel (the default): the target every connection goes to',
    );
  if (inbound !== 'tunnel' && options.forward !== undefined)
    throw inputError(
      `--forward goes with --inbound tunnel; with --inbound ${inbound} each application names its target`,
    );
  const forward = inbound === 'tunnel' ? endpointOption('--forward', options.forward) : null;
  const { inboundUser: user, inboundPassword: password } = options;
  if ((user === undefined) !== (password === undefined))
    throw inputError('give --inbound-user and --inbound-password together');
  if (user === undefined) return { inbound, forward, inboundAuth: null };
  if (inbound === 'tunnel')
    throw inputError('--inbound-user goes with --inbound socks5 or http: a tunnel asks applications nothing');
  const auth = { user: Buffer.from(user), password: Buffer.from(password) };
  for (const [flag, bytes] of [
    ['--inbound-user', auth.user],
    ['--inbound-password', auth.password],
  ]) {
    if (bytes.length < 1 || bytes.length > 255) throw inputError(`${flag} must be 1 to 255 bytes, got ${bytes.length}`);
  }
  return { inbound, forward, inboundAuth: auth };
}

async function relaySettings(options) {
  if (!LOG_LEVELS.includes(options.logLevel)) {
    throw inputError(`--log-level: unknown level ${JSON.stringify(options.logLevel)}; valid: ${LOG_LEVELS.join(', ')}`);
  }
  const listen = endpointOption('--listen', options.listen, { anyPort: true });
  if (options.key === '') throw inputError('--key must not be empty');
  const { catalogue, presets } = await parsePresets(options.presets);
  const keyProblem = chainPasswordProblem(catalogue, presets, options.key);
  if (keyProblem) throw inputError(`--key: ${keyProblem}`);
  return {
    listen,
    password: rawOptionValue('--key', options.key),
    catalogue,
    presets,
    log: createLog(options.logLevel),
  };
}

// Number() also reads "0x10", "1e3" and " 5 ": a count or a time a person
// types is decimal digits, with a fraction for seconds, and nothing else.
const decimal = (text) => (/^[0-9]+(\.[0-9]+)?$/.test(text) ? Number(text) : NaN);

function secondsOption(flag, text) {
  const seconds = decimal(text);
  if (!(seconds >= SECONDS.min && seconds <= SECONDS.max)) {
    throw inputError(
      `${flag} must be a number of seconds from ${SECONDS.min} to ${SECONDS.max} (one day), got ${JSON.stringify(text)}`,
    );
  }
  return seconds;
}

async function parsePresets(text) {
  let presets;
  try {
    presets = JSON.parse(text);
  } catch (error) {
    throw inputError(`--presets is not valid JSON (${error.message})`);
  }
  // A relay loads the presets its chain names, no others (registry.js);
  // a chain it refuses is refused naming every preset it could have used.
  const named = Array.isArray(presets) ? presets.map((entry) => entry?.name) : [];
  let catalogue = await loadCatalogue(PRESET_NAMES.filter((name) => named.includes(name)));
  let problems = validateChain(catalogue, presets);
  if (problems.length > 0) {
    catalogue = await loadCatalogue();
    problems = validateChain(catalogue, presets);
  }
  // One line in all, every problem in it.
  if (problems.length > 0)
    throw inputError(
      `--presets is not a valid chain: ${problems.map((p) => `${p.field}: ${p.message}`).join('; and ')}`,
    );
  if (chainNeedsLegacyProvider(catalogue, presets)) {
    const status = legacyProviderStatus();
    if (status === 'not-requested') {
      throw inputError(
        `this chain needs OpenSSL's legacy provider (rc4-md5, bf-cfb): start node with ${LEGACY_FLAG}, e.g. NODE_OPTIONS=${LEGACY_FLAG} cipherbench relay ...`,
      );
    }
    if (status === 'unavailable') {
      throw inputError(
        `this chain needs OpenSSL's legacy provider (rc4-md5, bf-cfb), and this Node's OpenSSL (${process.versions.openssl}) could not load it even with ${LEGACY_FLAG}`,
      );
    }
  }
  return { catalogue, presets };
}
