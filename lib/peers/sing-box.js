// @ts-check
import { randomUUID } from 'node:crypto';
import { AEAD_2022_METHODS, newPsk } from '../crypto/aead-2022-methods.js';
import { findPrograms } from '../process/programs.js';
import { borrowedSite } from './borrowed-site.js';
import { writeCertificateFiles } from './certificate-files.js';
import { configuredRelays, writeConfigFiles } from './config-files.js';
import { CASE_INBOUNDS } from './inbounds.js';
import { validateMethod } from './method-field.js';
import { fieldProblem, oneOf } from './reference-fields.js';
import {
  GRPC_SERVICE,
  SHADOWSOCKS_METHODS,
  TRANSPORT_PATH,
  TRANSPORTS,
  VMESS_SECURITIES,
} from './xray-sing-box-fields.js';

// sing-box (1.14, built with the with_quic and with_utls tags): its server
// an inbound of the protocol, its client a `direct` inbound overriding
// each connection's destination to the target (or the SOCKS5 / HTTP
// inbound a case names) and the protocol's outbound. `sing-box run -c
// FILE.json`, configs written from the case, a fresh UUID or key each run,
// TLS with a certificate made for the run that the client verifies.
// Hysteria2 and TUIC are QUIC: their servers bind UDP only. ShadowTLS v3
// carries a Shadowsocks inbound (the case's method) inside a handshake it
// borrows from a TLS site the run starts on loopback.
const SING_BOX_PROTOCOLS = ['shadowsocks', 'vmess', 'vless', 'trojan', 'hysteria2', 'tuic', 'shadowtls', 'anytls'];
// Protocols whose own layer is TLS (QUIC's or a TLS stream's): no tls field.
const OWN_TLS = ['hysteria2', 'tuic', 'anytls'];
const QUIC = ['hysteria2', 'tuic'];
// The protocols that take a transport other than tcp (V2Ray's transports).
const V2RAY_FAMILY = ['vmess', 'vless', 'trojan'];

const transportOf = (transport = 'tcp') =>
  ({
    tcp: {},
    ws: { transport: { type: 'ws', path: TRANSPORT_PATH } },
    grpc: { transport: { type: 'grpc', service_name: GRPC_SERVICE } },
    httpupgrade: { transport: { type: 'httpupgrade', path: TRANSPORT_PATH } },
    h2: { transport: { type: 'http', path: TRANSPORT_PATH } },
  })[transport];

// tls of each end, with QUIC's ALPN where the protocol is QUIC.
function tlsOf(side, protocol, certificate) {
  const alpn = QUIC.includes(protocol) ? { alpn: ['h3'] } : {};
  return side === 'server'
    ? { tls: { enabled: true, certificate_path: certificate.cert, key_path: certificate.key, ...alpn } }
    : { tls: { enabled: true, server_name: 'localhost', certificate_path: certificate.cert, ...alpn } };
}

const needsTls = ({ protocol, tls }) => tls === true || OWN_TLS.includes(protocol);

/**
 * The server's config. user: { id, password, method, security }; `tls`:
 * { cert, key } files when the case has TLS; `site`: the borrowed site's
 * port for ShadowTLS.
 */
export function singBoxServerConfig({ protocol, port, listen = '127.0.0.1', transport, tls, site, ...user }) {
  const at = { listen, listen_port: port };
  const secured = tls ? tlsOf('server', protocol, tls) : {};
  const inbound = {
    shadowsocks: () => ({ type: 'shadowsocks', ...at, method: user.method, password: user.password }),
    vmess: () => ({ type: 'vmess', ...at, users: [{ uuid: user.id, alterId: 0 }] }),
    vless: () => ({ type: 'vless', ...at, users: [{ uuid: user.id }] }),
    trojan: () => ({ type: 'trojan', ...at, users: [{ password: user.password }] }),
    hysteria2: () => ({ type: 'hysteria2', ...at, users: [{ password: user.password }] }),
    tuic: () => ({
      type: 'tuic',
      ...at,
      users: [{ uuid: user.id, password: user.password }],
      congestion_control: 'bbr',
    }),
    anytls: () => ({ type: 'anytls', ...at, users: [{ password: user.password }] }),
  };
  if (protocol === 'shadowtls') {
    return {
      log: { level: 'warn' },
      inbounds: [
        {
          type: 'shadowtls',
          ...at,
          version: 3,
          users: [{ password: user.password }],
          handshake: { server: '127.0.0.1', server_port: site },
          detour: 'shadowsocks-in',
        },
        // Reached only through the ShadowTLS inbound: a port of the kernel's choosing.
        {
          type: 'shadowsocks',
          tag: 'shadowsocks-in',
          listen: '127.0.0.1',
          method: user.method,
          password: user.password,
        },
      ],
      outbounds: [{ type: 'direct' }],
    };
  }
  return {
    log: { level: 'warn' },
    inbounds: [{ ...inbound[protocol](), ...secured, ...transportOf(transport) }],
    outbounds: [{ type: 'direct' }],
  };
}

// The client's inbound for a case's: `direct` with the target as its
// destination; socks and http let the application name it.
function clientInbound(inbound, port, forwardPort, udp) {
  const at = { listen: '127.0.0.1', listen_port: port };
  if (inbound === 'socks5') return { type: 'socks', ...at };
  if (inbound === 'http-connect' || inbound === 'http-proxy') return { type: 'http', ...at };
  return {
    type: 'direct',
    ...at,
    ...(udp ? {} : { network: 'tcp' }),
    override_address: '127.0.0.1',
    override_port: forwardPort,
  };
}

export function singBoxClientConfig({
  protocol,
  port,
  serverPort,
  forwardPort,
  server = '127.0.0.1',
  transport,
  tls,
  inbound = 'tunnel',
  udp = false,
  ...user
}) {
  const to = { server, server_port: serverPort };
  const secured = tls ? tlsOf('client', protocol, tls) : {};
  const outbound = {
    shadowsocks: () => ({ type: 'shadowsocks', ...to, method: user.method, password: user.password }),
    vmess: () => ({ type: 'vmess', ...to, uuid: user.id, security: user.security, alter_id: 0 }),
    vless: () => ({ type: 'vless', ...to, uuid: user.id }),
    trojan: () => ({ type: 'trojan', ...to, password: user.password }),
    hysteria2: () => ({ type: 'hysteria2', ...to, password: user.password }),
    tuic: () => ({ type: 'tuic', ...to, uuid: user.id, password: user.password, congestion_control: 'bbr' }),
    anytls: () => ({ type: 'anytls', ...to, password: user.password }),
  };
  const outbounds =
    protocol === 'shadowtls'
      ? [
          {
            type: 'shadowsocks',
            ...to,
            method: user.method,
            password: user.password,
            detour: 'shadowtls-out',
          },
          {
            type: 'shadowtls',
            tag: 'shadowtls-out',
            ...to,
            version: 3,
            password: user.password,
            tls: { enabled: true, server_name: 'localhost', certificate_path: tls.cert },
          },
        ]
      : [{ ...outbound[protocol](), ...secured, ...transportOf(transport) }];
  return { log: { level: 'warn' }, inbounds: [clientInbound(inbound, port, forwardPort, udp)], outbounds };
}

function validate(reference) {
  const { protocol, method, security, tls, transport = 'tcp' } = reference;
  const unknown = oneOf('protocol', protocol, SING_BOX_PROTOCOLS);
  if (unknown) return [unknown];
  const problems = [];
  if (protocol === 'shadowsocks' || protocol === 'shadowtls')
    problems.push(...validateMethod(reference, SHADOWSOCKS_METHODS));
  else if (method !== undefined)
    problems.push(fieldProblem('method', `belongs to shadowsocks and shadowtls; ${protocol} has no method`));
  if (protocol === 'vmess') {
    const bad = oneOf('security', security, VMESS_SECURITIES);
    if (bad) problems.push(bad);
  } else if (security !== undefined)
    problems.push(fieldProblem('security', `belongs to vmess; ${protocol} has no security`));
  if (tls !== undefined) {
    if (typeof tls !== 'boolean') problems.push(fieldProblem('tls', 'must be true or false'));
    else if (OWN_TLS.includes(protocol) || protocol === 'shadowtls')
      problems.push(fieldProblem('tls', `${protocol} always runs its own TLS: give no tls field`));
  }
  const badTransport = oneOf('transport', transport, [...TRANSPORTS, 'h2']);
  if (badTransport) problems.push(badTransport);
  else if (transport !== 'tcp' && !V2RAY_FAMILY.includes(protocol))
    problems.push(fieldProblem('transport', `${protocol} has no transport; vmess, vless and trojan do`));
  // Without tls, sing-box's `http` transport is HTTP/1.1, not HTTP/2.
  else if (transport === 'h2' && tls !== true)
    problems.push(
      fieldProblem('transport', 'h2 runs inside TLS (sing-box speaks HTTP/1.1 without it): give tls: true'),
    );
  return problems;
}

async function plan(reference, { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost, udp = false }) {
  const { protocol, method, security, transport, inbound } = reference;
  const user = { protocol, id: randomUUID(), password: key, method, security, transport };
  const site = [];
  const { files, cleanup } = await writeConfigFiles('sing-box', async (folder) => {
    const certificate = writeCertificateFiles(folder);
    let sitePort;
    if (protocol === 'shadowtls') {
      const borrowed = await borrowedSite(certificate);
      site.push(borrowed.relay);
      sitePort = borrowed.port;
    }
    const tls = needsTls(reference) || protocol === 'shadowtls' ? certificate : undefined;
    return {
      server: singBoxServerConfig({ ...user, port: ports.server, listen: serverBind, tls, site: sitePort }),
      client: singBoxClientConfig({
        ...user,
        port: ports.client,
        serverPort: ports.server,
        forwardPort: ports.target,
        server: serverHost,
        tls,
        inbound,
        udp,
      }),
    };
  });
  const relays = configuredRelays({
    files,
    ports,
    file: found['sing-box'],
    args: (config) => ['run', '-c', config],
    label: (role) => `sing-box ${role}`,
    serverReadiness: QUIC.includes(protocol) ? { udp: true } : {},
  });
  return { relays: [...site, ...relays], entryPort: ports.client, cleanup };
}

const singBoxLabel = ({ protocol, method, security, tls, transport }) =>
  [
    `sing-box ${protocol}`,
    method ?? security,
    tls ? '+ tls' : '',
    transport && transport !== 'tcp' ? `+ ${transport}` : '',
  ]
    .filter(Boolean)
    .join(' ');

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'sing-box',
  fields: ['protocol', 'method', 'security', 'tls', 'transport'],
  validate,
  inbounds: CASE_INBOUNDS,
  label: singBoxLabel,
  key: ({ method }) => (AEAD_2022_METHODS[method] ? newPsk(method) : undefined),
  hint: 'build it with `go install -tags with_quic,with_utls github.com/sagernet/sing-box/cmd/sing-box@v1.14.1` and put it on PATH, or put sing-box from a release (github.com/SagerNet/sing-box/releases) on PATH',
  // ShadowTLS wraps TCP only.
  carriesUdp: ({ protocol }) => protocol !== 'shadowtls',
  withoutUdp: () => 'ShadowTLS carries TCP only',
  locate: (reference, options) => findPrograms(['sing-box'], options),
  version: { program: 'sing-box', args: ['version'], pattern: /^sing-box version (\S+)/m },
  plan,
  // Its configuration and certificate are files on this host.
  remote: false,
};
