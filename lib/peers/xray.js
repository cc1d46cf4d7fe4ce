// @ts-check
import { randomUUID } from 'node:crypto';
import { AEAD_2022_METHODS, newPsk } from '../crypto/aead-2022-methods.js';
import { findPrograms } from '../process/programs.js';
import { borrowedSite, realityKeyPair } from './borrowed-site.js';
import { writeCertificateFiles } from './certificate-files.js';
import { configuredRelays, writeConfigFiles } from './config-files.js';
import { CASE_INBOUNDS } from './inbounds.js';
import { v2rayClientInbound } from './v2ray-inbounds.js';
import { validateMethod } from './method-field.js';
import {
  GRPC_SERVICE,
  SHADOWSOCKS_METHODS,
  TRANSPORT_PATH,
  TRANSPORTS,
  VMESS_SECURITIES,
} from './xray-sing-box-fields.js';
import { fieldProblem, oneOf } from './reference-fields.js';
import { MUX_FIELDS, muxConcurrency, muxProblems, muxSetting } from './mux-fields.js';

// Xray-core (26.x, `go install github.com/xtls/xray-core/main`, installed as
// `xray`): its server an inbound of the protocol with a freedom outbound,
// its client a dokodemo-door inbound forwarding each connection to the
// target through the protocol's outbound (or the SOCKS5 / HTTP inbound a
// case names). `xray run -c FILE.json`, configs written from the case, a
// fresh UUID or key each run. TLS uses a certificate made for the run,
// which the client verifies (Xray 26 refuses allowInsecure). REALITY
// borrows the handshake of a TLS site the run starts on loopback; its
// client authenticates the server by the X25519 key made for the run.
const XRAY_PROTOCOLS = ['shadowsocks', 'vmess', 'vless', 'trojan'];
const FLOWS = ['xtls-rprx-vision'];

const transportSettings = (transport) =>
  ({
    tcp: { network: 'raw' },
    ws: { network: 'ws', wsSettings: { path: TRANSPORT_PATH } },
    grpc: { network: 'grpc', grpcSettings: { serviceName: GRPC_SERVICE } },
    httpupgrade: { network: 'httpupgrade', httpupgradeSettings: { path: TRANSPORT_PATH } },
  })[transport];

// streamSettings of each end: the transport, then TLS, REALITY or nothing.
// `tls`: { cert, key } files; `reality`: { site, privateKey, publicKey }.
function streamSettings(side, { transport = 'tcp', tls, reality }) {
  const stream = { ...transportSettings(transport), security: 'none' };
  if (tls) {
    stream.security = 'tls';
    stream.tlsSettings =
      side === 'server'
        ? { certificates: [{ certificateFile: tls.cert, keyFile: tls.key }] }
        : { serverName: 'localhost', certificates: [{ usage: 'verify', certificateFile: tls.cert }] };
  } else if (reality) {
    stream.security = 'reality';
    stream.realitySettings =
      side === 'server'
        ? {
            target: `127.0.0.1:${reality.site}`,
            serverNames: ['localhost'],
            privateKey: reality.privateKey,
            shortIds: [''],
          }
        : { serverName: 'localhost', fingerprint: 'chrome', password: reality.publicKey, shortId: '' };
  }
  return stream;
}

const inboundSettings = {
  shadowsocks: ({ method, password }) => ({ method, password, network: 'tcp,udp' }),
  vmess: ({ id }) => ({ clients: [{ id }] }),
  vless: ({ id, flow }) => ({ clients: [{ id, ...(flow ? { flow } : {}) }], decryption: 'none' }),
  trojan: ({ password }) => ({ clients: [{ password }] }),
};
const outboundSettings = {
  shadowsocks: ({ server, serverPort, method, password }) => ({
    servers: [{ address: server, port: serverPort, method, password }],
  }),
  vmess: ({ server, serverPort, id, security }) => ({
    vnext: [{ address: server, port: serverPort, users: [{ id, security }] }],
  }),
  vless: ({ server, serverPort, id, flow }) => ({
    vnext: [{ address: server, port: serverPort, users: [{ id, encryption: 'none', ...(flow ? { flow } : {}) }] }],
  }),
  trojan: ({ server, serverPort, password }) => ({ servers: [{ address: server, port: serverPort, password }] }),
};

/**
 * The server's config: an inbound of the protocol, a freedom outbound.
 * user: { id, password, method, flow }; stream: { transport, tls, reality }.
 */
export const xrayServerConfig = ({ protocol, port, listen = '127.0.0.1', transport, tls, reality, ...user }) => ({
  log: { loglevel: 'warning' },
  inbounds: [
    {
      listen,
      port,
      protocol,
      settings: inboundSettings[protocol](user),
      streamSettings: streamSettings('server', { transport, tls, reality }),
    },
  ],
  outbounds: [{ protocol: 'freedom' }],
});

export const xrayClientConfig = ({
  protocol,
  port,
  serverPort,
  forwardPort,
  server = '127.0.0.1',
  transport,
  tls,
  reality,
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
      streamSettings: streamSettings('client', { transport, tls, reality }),
      ...muxSetting(mux),
    },
  ],
});

function validate(reference) {
  const { protocol, method, security, tls, reality, flow, transport = 'tcp', mux, concurrency } = reference;
  const unknown = oneOf('protocol', protocol, XRAY_PROTOCOLS, {
    elsewhere: { hysteria2: 'sing-box', tuic: 'sing-box', shadowtls: 'sing-box', anytls: 'sing-box' },
  });
  if (unknown) return [unknown];
  const problems = [];
  const belongs = (field, value, owner, why = '') => {
    if (value !== undefined && protocol !== owner)
      problems.push(fieldProblem(field, `belongs to ${owner}; ${protocol} has no ${field}${why}`));
  };
  if (protocol === 'shadowsocks') problems.push(...validateMethod(reference, SHADOWSOCKS_METHODS));
  else belongs('method', method, 'shadowsocks');
  if (protocol === 'vmess') {
    const badSecurity = oneOf('security', security, VMESS_SECURITIES);
    if (badSecurity) problems.push(badSecurity);
  } else belongs('security', security, 'vmess');
  for (const [field, value] of Object.entries({ tls, reality })) {
    if (value !== undefined && typeof value !== 'boolean') problems.push(fieldProblem(field, 'must be true or false'));
  }
  if (reality) {
    belongs('reality', reality, 'vless', ' (REALITY authenticates VLESS users)');
    if (tls) problems.push(fieldProblem('reality', 'replaces tls: give one of them'));
    if (!['tcp', 'grpc'].includes(transport))
      problems.push(fieldProblem('reality', `runs over tcp or grpc, not ${JSON.stringify(transport)}`));
  }
  const badTransport = oneOf('transport', transport, TRANSPORTS);
  if (badTransport) problems.push(badTransport);
  if (flow !== undefined) {
    const badFlow = oneOf('flow', flow, FLOWS);
    if (badFlow) problems.push(badFlow);
    belongs('flow', flow, 'vless');
    if (protocol === 'vless' && !tls && !reality)
      problems.push(fieldProblem('flow', 'Vision splices TLS inside TLS: give tls: true or reality: true'));
    if (transport !== 'tcp') problems.push(fieldProblem('flow', `Vision runs over tcp only, not ${transport}`));
  }
  problems.push(...muxProblems({ mux, concurrency }));
  if (mux && flow) problems.push(fieldProblem('mux', 'Vision carries one connection a tunnel: drop mux or flow'));
  return problems;
}

async function plan(reference, { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost, udp = false }) {
  const { protocol, method, security, transport = 'tcp', flow, inbound } = reference;
  const mux = muxConcurrency(reference);
  const user = { protocol, id: randomUUID(), password: key, method, security, flow, transport };
  const site = [];
  const { files, cleanup } = await writeConfigFiles('xray', async (folder) => {
    const certificate = writeCertificateFiles(folder);
    const tls = reference.tls ? certificate : undefined;
    let reality;
    if (reference.reality) {
      const borrowed = await borrowedSite(certificate);
      site.push(borrowed.relay);
      reality = { site: borrowed.port, ...realityKeyPair() };
    }
    return {
      server: xrayServerConfig({ ...user, port: ports.server, listen: serverBind, tls, reality }),
      client: xrayClientConfig({
        ...user,
        port: ports.client,
        serverPort: ports.server,
        forwardPort: ports.target,
        server: serverHost,
        tls,
        reality,
        inbound,
        udp,
        mux,
      }),
    };
  });
  const relays = configuredRelays({
    files,
    ports,
    file: found.xray,
    args: (config) => ['run', '-c', config],
    label: (role) => `xray ${role}`,
  });
  return { relays: [...site, ...relays], entryPort: ports.client, cleanup };
}

const xrayLabel = ({ protocol, method, security, tls, reality, flow, transport, mux }) =>
  [
    `xray ${protocol}`,
    method ?? security,
    tls ? '+ tls' : '',
    reality ? '+ reality' : '',
    flow ? '+ vision' : '',
    transport && transport !== 'tcp' ? `+ ${transport}` : '',
    mux ? '+ mux' : '',
  ]
    .filter(Boolean)
    .join(' ');

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'xray',
  fields: ['protocol', 'method', 'security', 'tls', 'reality', 'flow', 'transport', ...MUX_FIELDS],
  validate,
  inbounds: CASE_INBOUNDS,
  label: xrayLabel,
  key: ({ protocol, method }) => (protocol === 'shadowsocks' && AEAD_2022_METHODS[method] ? newPsk(method) : undefined),
  hint: 'build it with `go install github.com/xtls/xray-core/main@v1.260327.0` and put the binary on PATH as `xray` (go names it `main`), or put xray from a release (github.com/XTLS/Xray-core/releases) on PATH',
  carriesUdp: () => true,
  locate: (reference, options) => findPrograms(['xray'], options),
  version: { program: 'xray', args: ['version'], pattern: /^Xray (\S+)/m },
  plan,
  // Its configuration and certificate are files on this host.
  remote: false,
};
