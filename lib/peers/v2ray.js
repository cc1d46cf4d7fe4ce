import { randomUUID } from 'node:crypto';
import { findPrograms } from '../process/programs.js';
import { writeConfigFiles } from './config-files.js';
import { CASE_INBOUNDS } from './inbounds.js';

// V2Ray (4.x, as Debian packages it) carrying VMess: the server a vmess
// inbound with a freedom outbound, the client a dokodemo-door inbound
// forwarding every connection to the target through a vmess outbound.
// `v2ray -config FILE.json`; a fresh user ID each run. alterId 0 (the
// default) makes V2Ray's client send the AEAD header, more the legacy one.
const SECURITIES = ['aes-128-gcm', 'chacha20-poly1305', 'none', 'auto'];
const MAX_ALTER_ID = 65535;

export const v2rayServerConfig = ({ port, id, alterId = 0, listen = '127.0.0.1' }) => ({
  log: { loglevel: 'warning' },
  inbounds: [{ listen, port, protocol: 'vmess', settings: { clients: [{ id, alterId }] } }],
  outbounds: [{ protocol: 'freedom' }],
});

// The client's inbound for a case's: dokodemo-door forwards to the target;
// socks (no authentication) and http (CONNECT and plain) let the
// application name it.
const clientInbound = (inbound, port, forwardPort) => {
  if (inbound === 'socks5') return { listen: '127.0.0.1', port, protocol: 'socks', settings: { auth: 'noauth', udp: false } };
  if (inbound === 'http-connect' || inbound === 'http-proxy') return { listen: '127.0.0.1', port, protocol: 'http', settings: {} };
  return { listen: '127.0.0.1', port, protocol: 'dokodemo-door', settings: { address: '127.0.0.1', port: forwardPort, network: 'tcp' } };
};

export const v2rayClientConfig = ({ port, serverPort, forwardPort, id, alterId = 0, security, server = '127.0.0.1', inbound = 'tunnel' }) => ({
  log: { loglevel: 'warning' },
  inbounds: [clientInbound(inbound, port, forwardPort)],
  outbounds: [{
    protocol: 'vmess',
    settings: { vnext: [{ address: server, port: serverPort, users: [{ id, alterId, security }] }] },
  }],
});

function validate({ security, alterId }) {
  const problems = [];
  if (!SECURITIES.includes(security)) {
    problems.push({ field: 'security', message: `${security === undefined ? 'missing' : `unknown security ${JSON.stringify(security)}`}; valid: ${SECURITIES.join(', ')}` });
  }
  if (alterId !== undefined && !(Number.isInteger(alterId) && alterId >= 0 && alterId <= MAX_ALTER_ID)) {
    problems.push({ field: 'alterId', message: `must be an integer from 0 to ${MAX_ALTER_ID}` });
  }
  return problems;
}

// The two configs in a folder removed when the run ends. V2Ray logs once
// it has started, but readiness is read from the listening table, as for
// the other peers.
async function plan({ security, alterId = 0, inbound }, { ports, found, serverHost = '127.0.0.1', serverBind = serverHost }) {
  const id = randomUUID();
  const { files, cleanup } = await writeConfigFiles('v2ray', () => ({
    server: v2rayServerConfig({ port: ports.server, id, alterId, listen: serverBind }),
    client: v2rayClientConfig({ port: ports.client, serverPort: ports.server, forwardPort: ports.target, id, alterId, security, server: serverHost, inbound }),
  }));
  const relays = ['server', 'client'].map((role) => ({
    role,
    label: `v2ray ${role}`,
    file: found.v2ray,
    args: ['-config', files[role]],
    readiness: { listening: role === 'server' ? ports.server : ports.client },
  }));
  return { relays, entryPort: ports.client, cleanup };
}

export default {
  impl: 'v2ray',
  fields: ['security', 'alterId'],
  validate,
  inbounds: CASE_INBOUNDS,
  label: ({ security, alterId }) => `v2ray vmess ${security}${alterId ? ` alterId ${alterId}` : ''}`,
  hint: 'install it with `apt-get install v2ray` (Debian/Ubuntu, 4.x) or put a v2ray 4.x binary (github.com/v2fly/v2ray-core/releases) on PATH',
  locate: (reference, options) => findPrograms(['v2ray'], options),
  plan,
  // Its configuration is a file on this host.
  remote: false,
};
