// @ts-check
import { AEAD_2022_METHODS, newPsk } from '../crypto/aead-2022-methods.js';
import { findPrograms } from '../process/programs.js';
import { CASE_INBOUNDS } from './inbounds.js';
import { validateMethod } from './method-field.js';

// shadowsocks-rust: ssserver, and sslocal in tunnel mode as the client.
// What they log, and where, depends on the build and its log settings, so
// readiness is read from the kernel's table of listening sockets.
// The methods are the AEAD and 2022 ciphers of every build (stream ciphers
// need the stream-cipher feature); a 2022 cipher takes a base64 key of its
// own length, not the run's password.
const METHODS = ['aes-128-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305', ...Object.keys(AEAD_2022_METHODS)];

// sslocal's --protocol for a case's inbound: its http local serves CONNECT
// and plain requests alike.
function localProtocol(inbound, ports) {
  if (inbound === 'tunnel') return ['--protocol', 'tunnel', '--forward-addr', `127.0.0.1:${ports.target}`];
  return ['--protocol', inbound === 'socks5' ? 'socks' : 'http'];
}

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'shadowsocks-rust',
  fields: ['method'],
  validate: (reference) => validateMethod(reference, METHODS),
  label: ({ method }) => `shadowsocks-rust ${method}`,
  key: ({ method }) => (AEAD_2022_METHODS[method] ? newPsk(method) : undefined),
  hint: 'install it with `cargo install shadowsocks-rust`, or put ssserver and sslocal from a release (github.com/shadowsocks/shadowsocks-rust/releases) on PATH',
  inbounds: CASE_INBOUNDS,
  // -U: TCP and UDP (-u would be UDP alone).
  carriesUdp: () => true,
  locate: (reference, options) => findPrograms(['ssserver', 'sslocal'], options),
  version: { program: 'ssserver', args: ['--version'], pattern: /^shadowsocks (\S+)/m },
  plan: async (
    { method, inbound = 'tunnel' },
    { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost, udp = false },
  ) => ({
    relays: [
      {
        role: 'server',
        label: 'ssserver',
        file: found.ssserver,
        args: ['-s', `${serverBind}:${ports.server}`, '-k', key, '-m', method, ...(udp ? ['-U'] : [])],
        readiness: { listening: ports.server },
      },
      {
        role: 'client',
        label: 'sslocal',
        file: found.sslocal,
        args: [
          ...localProtocol(inbound, ports),
          '-b',
          `127.0.0.1:${ports.client}`,
          '-s',
          `${serverHost}:${ports.server}`,
          '-k',
          key,
          '-m',
          method,
          ...(udp ? ['-U'] : []),
        ],
        readiness: { listening: ports.client },
      },
    ],
    entryPort: ports.client,
  }),
};
