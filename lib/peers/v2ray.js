// @ts-check
import { randomUUID } from 'node:crypto';
import { findPrograms } from '../process/programs.js';
import { writeCertificateFiles } from './certificate-files.js';
import { configuredRelays, writeConfigFiles } from './config-files.js';
import { oneOf } from './reference-fields.js';
import { CASE_INBOUNDS } from './inbounds.js';
import { MUX_FIELDS, muxConcurrency, muxProblems, muxSetting } from './mux-fields.js';
import { v2rayClientInbound } from './v2ray-inbounds.js';

// V2Ray (4.x, as Debian packages it) carrying VMess, Trojan or VLESS: the
// server an inbound of the protocol with a freedom outbound, the client a
// dokodemo-door inbound forwarding every connection to the target through
// the protocol's outbound. `v2ray -config FILE.json`; a fresh user ID (or
// the run's password) each run. alterId 0 (the default) makes V2Ray's
// VMess client send the AEAD header, more the legacy one. With tls both
// ends speak TLS over TCP with a certificate made for the run, which the
// client verifies. With udp the dokodemo-door takes UDP too, to the same
// target port (iperf3 -u's control connection and stream share it); the
// server's inbound relays UDP without being told.
const PROTOCOLS = ['vmess', 'trojan', 'vless'];
const SECURITIES = ['aes-128-gcm', 'chacha20-poly1305', 'none', 'auto'];
const MAX_ALTER_ID = 65535;

// Where ws and h2 requests go: our presets' default path.
const TRANSPORT_PATH = '/cipherbench';
const TRANSPORTS = ['tcp', 'ws', 'h2'];
const network = (transport = 'tcp') =>
  ({
    tcp: { network: 'tcp' },
    ws: { network: 'ws', wsSettings: { path: TRANSPORT_PATH } },
    h2: { network: 'http', httpSettings: { path: TRANSPORT_PATH } },
  })[transport];

// TLS with the run's certificate: the server presents it, the client
// verifies the server's with it.
const tlsSettings = {
  server: (tls) => ({ certificates: [{ certificateFile: tls.cert, keyFile: tls.key }] }),
  client: (tls) => ({ serverName: 'localhost', certificates: [{ usage: 'verify', certificateFile: tls.cert }] }),
};

// streamSettings: the transport, plain or inside TLS.
const streamSettings = (side, tls, transport) =>
  tls || transport
    ? {
        streamSettings: {
          ...network(transport),
          ...(tls ? { security: 'tls', tlsSettings: tlsSettings[side](tls) } : {}),
        },
      }
    : {};

const inboundSettings = {
  vmess: ({ id, alterId = 0 }) => ({ clients: [{ id, alterId }] }),
  trojan: ({ password }) => ({ clients: [{ password }] }),
  vless: ({ id }) => ({ clients: [{ id }], decryption: 'none' }),
};
const outboundSettings = {
  vmess: ({ server, serverPort, id, alterId = 0, security }) => ({
    vnext: [{ address: server, port: serverPort, users: [{ id, alterId, security }] }],
  }),
  trojan: ({ server, serverPort, password }) => ({ servers: [{ address: server, port: serverPort, password }] }),
  vless: ({ server, serverPort, id }) => ({
    vnext: [{ address: server, port: serverPort, users: [{ id, encryption: 'none' }] }],
  }),
};

// `tls`: { cert, key } files, or none for plain TCP.
export const v2rayServerConfig = ({ protocol = 'vmess', port, listen = '127.0.0.1', tls, transport, ...user }) => ({
  log: { loglevel: 'warning' },
  inbounds: [
    { listen, port, protocol, settings: inboundSettings[protocol](user), ...streamSettings('server', tls, transport) },
  ],
  outbounds: [{ protocol: 'freedom' }],
});

export const v2rayClientConfig = ({
  protocol = 'vmess',
  port,
  serverPort,
  forwardPort,
  server = '127.0.0.1',
  tls,
  transport,
  inbound = 'tunnel',
  udp = false,
  mux,
  ...user
}) => ({
  log: { loglevel: 'warning' },
  inbounds: [v2rayClientInbound(inbound, port, forwardPort, udp)],
  outbounds: [
    {
      protocol,
      settings: outboundSettings[protocol]({ server, serverPort, ...user }),
      ...streamSettings('client', tls, transport),
      ...muxSetting(mux),
    },
  ],
});

function validate({ protocol = 'vmess', security, alterId, tls, transport = 'tcp', mux, concurrency }) {
  const unknown = oneOf('protocol', protocol, PROTOCOLS);
  if (unknown) return [unknown];
  const problems = [...muxProblems({ mux, concurrency })];
  const badTransport = oneOf('transport', transport, TRANSPORTS);
  if (badTransport) problems.push(badTransport);
  // V2Ray's client dials its http transport only over TLS that agreed on h2.
  else if (transport === 'h2' && tls !== true)
    problems.push({ field: 'transport', message: 'h2 runs inside TLS in V2Ray: give tls: true' });
  if (tls !== undefined && typeof tls !== 'boolean')
    problems.push({
      field: 'tls',
      message: 'must be true (TLS over TCP, with a certificate made for the run) or false',
    });
  if (protocol !== 'vmess') {
    for (const [field, value] of Object.entries({ security, alterId })) {
      if (value !== undefined)
        problems.push({
          field,
          message: `belongs to vmess; ${protocol} has no ${field} (TLS is its cipher: tls: true)`,
        });
    }
    return problems;
  }
  const badSecurity = oneOf('security', security, SECURITIES);
  if (badSecurity) problems.push(badSecurity);
  if (alterId !== undefined && !(Number.isInteger(alterId) && alterId >= 0 && alterId <= MAX_ALTER_ID)) {
    problems.push({ field: 'alterId', message: `must be an integer from 0 to ${MAX_ALTER_ID}` });
  }
  return problems;
}

// The two configs in a folder removed when the run ends. V2Ray logs once
// it has started, but readiness is read from the listening table, as for
// the other peers.
async function plan(
  { protocol = 'vmess', security, alterId = 0, tls = false, transport, inbound, mux, concurrency },
  { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost, udp = false },
) {
  const user = { protocol, id: randomUUID(), password: key, alterId, security, transport };
  const { files, cleanup } = await writeConfigFiles('v2ray', (folder) => {
    const certificate = tls ? writeCertificateFiles(folder) : undefined;
    return {
      server: v2rayServerConfig({ ...user, port: ports.server, listen: serverBind, tls: certificate }),
      client: v2rayClientConfig({
        ...user,
        port: ports.client,
        serverPort: ports.server,
        forwardPort: ports.target,
        server: serverHost,
        tls: certificate,
        inbound,
        udp,
        mux: muxConcurrency({ mux, concurrency }),
      }),
    };
  });
  const relays = configuredRelays({
    files,
    ports,
    file: found.v2ray,
    args: (config) => ['-config', config],
    label: (role) => `v2ray ${role}`,
  });
  return { relays, entryPort: ports.client, cleanup };
}

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'v2ray',
  fields: ['protocol', 'security', 'alterId', 'tls', 'transport', ...MUX_FIELDS],
  validate,
  inbounds: CASE_INBOUNDS,
  label: ({ protocol = 'vmess', security, alterId, tls, transport, mux }) =>
    [
      `v2ray ${protocol}`,
      security,
      alterId ? `alterId ${alterId}` : '',
      tls ? '+ tls' : '',
      transport && transport !== 'tcp' ? `+ ${transport}` : '',
      mux ? '+ mux' : '',
    ]
      .filter(Boolean)
      .join(' '),
  hint: 'install it with `apt-get install v2ray` (Debian/Ubuntu, 4.x) or put a v2ray 4.x binary (github.com/v2fly/v2ray-core/releases) on PATH',
  // VMess and VLESS carry each datagram whole, with TLS too. V2Ray 4.34's
  // trojan does not keep datagram boundaries: its client packs what it has
  // queued into one packet of up to 8 KB and its server sends it on in
  // pieces of up to 2 KB (200 datagrams of 1,200 bytes arrived as 17 of
  // 352 to 2,048 bytes), so iperf3 -u counts 99.9% lost.
  carriesUdp: ({ protocol = 'vmess' }) => protocol !== 'trojan',
  withoutUdp: () => "V2Ray 4.34's trojan merges and splits datagrams",
  locate: (reference, options) => findPrograms(['v2ray'], options),
  version: { program: 'v2ray', args: ['-version'], pattern: /^V2Ray (\S+)/m },
  plan,
  // Its configuration is a file on this host.
  remote: false,
};
