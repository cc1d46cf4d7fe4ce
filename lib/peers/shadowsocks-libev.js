// @ts-check
import { nearestHint } from '../nearest-name.js';
import { findPrograms } from '../process/programs.js';
import { validateMethod } from './method-field.js';

// The C implementation, as Debian packages it: ss-server, and ss-tunnel as
// the client, which forwards one port to a fixed target as our relay client
// does. Both print 'listening at HOST:PORT' just before they bind (3.3.5's
// server.c and tunnel.c), so a connection on that line can be refused: the
// socket table says when they listen.
// ss-server -h of 3.3.5 lists these (salsa20 and chacha20 need libsodium,
// which every build links).
const METHODS = [
  'rc4-md5',
  'aes-128-gcm',
  'aes-192-gcm',
  'aes-256-gcm',
  'aes-128-cfb',
  'aes-192-cfb',
  'aes-256-cfb',
  'aes-128-ctr',
  'aes-192-ctr',
  'aes-256-ctr',
  'camellia-128-cfb',
  'camellia-192-cfb',
  'camellia-256-cfb',
  'bf-cfb',
  'chacha20-ietf-poly1305',
  'xchacha20-ietf-poly1305',
  'salsa20',
  'chacha20',
  'chacha20-ietf',
];
// With `obfs`, both ends run the simple-obfs plugin (Debian's simple-obfs
// package): ss-server starts obfs-server on the server port and listens
// itself on a port of its own; ss-tunnel starts obfs-local, then listens on
// the client port. A plugin says it listens on stderr once it does (its
// parent has forked it just before its own listen), so that line is the
// server's readiness, and the line and then the client port the client's. A
// plugin is named, not given by path: ss-server and ss-tunnel find it on
// the PATH they were started with, here or on a --remote host.
const OBFS_MODES = ['http', 'tls'];
const PLUGIN_LISTENING = /\[simple-obfs\] INFO: listening at /;
const PROGRAMS = ['ss-server', 'ss-tunnel'];
// ss-local is the SOCKS5 inbound (inbound: 'socks5'), in ss-tunnel's place.
const INBOUNDS = ['tunnel', 'socks5'];
const PLUGIN_PROGRAMS = ['obfs-server', 'obfs-local'];

/** @param {import('../contracts.js').Reference} reference */
function validateObfs({ obfs }) {
  if (obfs === undefined || OBFS_MODES.includes(obfs)) return [];
  return [
    {
      field: 'obfs',
      message: `unknown simple-obfs mode ${JSON.stringify(obfs)}${nearestHint(obfs, OBFS_MODES)}; valid: ${OBFS_MODES.join(', ')}`,
    },
  ];
}

const plugin = (obfs, program) => (obfs ? ['--plugin', program, '--plugin-opts', `obfs=${obfs}`] : []);

const MBED_TLS_GCM = ['aes-128-gcm', 'aes-192-gcm'];

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'shadowsocks-libev',
  fields: ['method', 'obfs'],
  validate: (reference) => [...validateMethod(reference, METHODS), ...validateObfs(reference)],
  label: ({ method, obfs }) => `shadowsocks-libev ${method}${obfs ? ` + simple-obfs ${obfs}` : ''}`,
  hint: ({ obfs }) =>
    obfs
      ? 'install them with `apt-get install shadowsocks-libev simple-obfs` (Debian/Ubuntu)'
      : 'install it with `apt-get install shadowsocks-libev` (Debian/Ubuntu) or `brew install shadowsocks-libev` (macOS)',
  inbounds: INBOUNDS,
  // -u: TCP and UDP; simple-obfs carries TCP only.
  carriesUdp: ({ obfs }) => !obfs,
  version: { program: 'ss-server', args: ['-h'], pattern: /^shadowsocks-libev (\S+)/m },
  // Debian's build takes these two from mbed TLS 2.28, whose GCM runs a
  // block at a time; aes-256-gcm and ChaCha20 from libsodium's pipelined code.
  note: ({ method }) =>
    MBED_TLS_GCM.includes(method)
      ? `shadowsocks-libev ${method} measures mbed TLS's GCM, a block at a time, where its aes-256-gcm measures libsodium's: a row of the library more than the cipher (docs/performance.md)`
      : undefined,
  locate: ({ obfs, inbound }, options) =>
    findPrograms(
      [...PROGRAMS, ...(inbound === 'socks5' ? ['ss-local'] : []), ...(obfs ? PLUGIN_PROGRAMS : [])],
      options,
    ),
  plan: async (
    { method, obfs, inbound },
    { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost, udp = false },
  ) => ({
    relays: [
      {
        role: 'server',
        label: 'ss-server',
        file: found['ss-server'],
        args: [
          '-s',
          serverBind,
          '-p',
          String(ports.server),
          '-k',
          key,
          '-m',
          method,
          ...plugin(obfs, 'obfs-server'),
          ...(udp ? ['-u'] : []),
        ],
        readiness: obfs ? { stderr: PLUGIN_LISTENING } : { listening: ports.server },
      },
      {
        role: 'client',
        label: inbound === 'socks5' ? 'ss-local' : 'ss-tunnel',
        file: found[inbound === 'socks5' ? 'ss-local' : 'ss-tunnel'],
        args: [
          '-s',
          serverHost,
          '-p',
          String(ports.server),
          '-b',
          '127.0.0.1',
          '-l',
          String(ports.client),
          ...(inbound === 'socks5' ? [] : ['-L', `127.0.0.1:${ports.target}`]),
          '-k',
          key,
          '-m',
          method,
          ...plugin(obfs, 'obfs-local'),
          ...(udp ? ['-u'] : []),
        ],
        readiness: obfs ? { stderr: PLUGIN_LISTENING, listening: ports.client } : { listening: ports.client },
      },
    ],
    entryPort: ports.client,
  }),
};
