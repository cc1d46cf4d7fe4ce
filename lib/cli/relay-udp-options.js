// @ts-check
import { chainHasUdp, withoutUdpPhrase } from '../chain/udp-form.js';
import { DEFAULT_MAX_ASSOCIATIONS, DEFAULT_UDP_TIMEOUT_MS } from '../relay/udp/associations.js';
import { besideTcp } from '../relay/udp/beside-tcp.js';
import { startUdpRelayClient } from '../relay/udp/forward-client.js';
import { startUdpRelayServer } from '../relay/udp/relay-server.js';
import { inputError } from '../errors.js';

// --udp and its limits on `relay server` and `relay client`, as
// shadowsocks-rust names them: the UDP relay beside the TCP one, on the
// same port number.
const TIMEOUT_SECONDS = { min: 0.1, max: 86_400 };
const MAX_ASSOCIATIONS = 1_000_000;

export const udpOptions = (command, role) =>
  command
    .option(
      '--udp',
      `relay UDP too (${role === 'server' ? 'on the same port, as ss-server -u' : 'with --inbound tunnel a UDP port forward to --forward on the same port, as ss-tunnel -u; with --inbound socks5 UDP ASSOCIATE, as ss-local -u'})`,
    )
    .option(
      '--udp-timeout <seconds>',
      'forget a UDP association after this long without a datagram',
      String(DEFAULT_UDP_TIMEOUT_MS / 1000),
    )
    .option(
      '--udp-max-associations <count>',
      'UDP associations (senders, or SOCKS5 UDP ASSOCIATE requests) at once; a new one beyond is refused',
      String(DEFAULT_MAX_ASSOCIATIONS),
    );

// Checks the UDP options before anything starts; returns
// (startTcp, extra) -> the relay to serve.
export function withUdp(options, settings, role) {
  if (!options.udp) return (startTcp) => startTcp();
  const { timeoutMs, maxAssociations } = udpLimits(options, settings);
  const start = role === 'server' ? startUdpRelayServer : startUdpRelayClient;
  const startUdp = (extra) => (listen, tcp) =>
    start({ ...settings, ...extra, listen, timeoutMs, maxAssociations, muxPool: tcp.muxPool });
  return (startTcp, extra) => besideTcp(startTcp, startUdp(extra), { anyPort: settings.listen.port === 0 });
}

// { timeoutMs, maxAssociations } of --udp, checked with the chain; for the
// socks5 inbound, whose UDP is its own (UDP ASSOCIATE), and withUdp.
export function udpLimits(options, settings) {
  if (!chainHasUdp(settings.catalogue, settings.presets)) {
    throw inputError(
      `--udp: this chain has no UDP form (${withoutUdpPhrase(settings.catalogue, settings.presets)}); UDP goes through ss-base with ss-aead-cipher or ss-stream-cipher, ss-2022, or any chain with mux`,
    );
  }
  const seconds = Number(options.udpTimeout);
  if (!(seconds >= TIMEOUT_SECONDS.min && seconds <= TIMEOUT_SECONDS.max)) {
    throw inputError(
      `--udp-timeout must be a number of seconds from ${TIMEOUT_SECONDS.min} to ${TIMEOUT_SECONDS.max} (one day), got ${JSON.stringify(options.udpTimeout)}`,
    );
  }
  const maxAssociations = Number(options.udpMaxAssociations);
  if (!Number.isInteger(maxAssociations) || maxAssociations < 1 || maxAssociations > MAX_ASSOCIATIONS) {
    throw inputError(
      `--udp-max-associations must be a whole number from 1 to ${MAX_ASSOCIATIONS}, got ${JSON.stringify(options.udpMaxAssociations)}`,
    );
  }
  return { timeoutMs: seconds * 1000, maxAssociations };
}
