import { findPrograms } from '../programs.js';
import { validateMethod } from './method-field.js';

// The C implementation, as Debian packages it: ss-server, and ss-tunnel as
// the client, which forwards one port to a fixed target as our relay client
// does. Both print 'listening at HOST:PORT' (on stdout, flushed) once they listen.
// ss-server -h of 3.3.5 lists these (salsa20 and chacha20 need libsodium,
// which every build links).
const METHODS = [
  'rc4-md5', 'aes-128-gcm', 'aes-192-gcm', 'aes-256-gcm', 'aes-128-cfb', 'aes-192-cfb', 'aes-256-cfb',
  'aes-128-ctr', 'aes-192-ctr', 'aes-256-ctr', 'camellia-128-cfb', 'camellia-192-cfb', 'camellia-256-cfb',
  'bf-cfb', 'chacha20-ietf-poly1305', 'xchacha20-ietf-poly1305', 'salsa20', 'chacha20', 'chacha20-ietf',
];
const LISTENING = /listening at /;

export default {
  impl: 'shadowsocks-libev',
  fields: ['method'],
  validate: (reference) => validateMethod(reference, METHODS),
  label: ({ method }) => `shadowsocks-libev ${method}`,
  hint: 'install it with `apt-get install shadowsocks-libev` (Debian/Ubuntu) or `brew install shadowsocks-libev` (macOS)',
  locate: (reference, options) => findPrograms(['ss-server', 'ss-tunnel'], options),
  plan: async ({ method }, { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost }) => ({
    relays: [
      {
        role: 'server',
        label: 'ss-server',
        file: found['ss-server'],
        args: ['-s', serverBind, '-p', String(ports.server), '-k', key, '-m', method],
        readiness: { stdout: LISTENING },
      },
      {
        role: 'client',
        label: 'ss-tunnel',
        file: found['ss-tunnel'],
        args: [
          '-s', serverHost, '-p', String(ports.server), '-b', '127.0.0.1', '-l', String(ports.client),
          '-L', `127.0.0.1:${ports.target}`, '-k', key, '-m', method,
        ],
        readiness: { stdout: LISTENING },
      },
    ],
    entryPort: ports.client,
  }),
};
