// @ts-check
import { findPrograms } from '../process/programs.js';
import { writeCertificateFiles } from './certificate-files.js';
import { configuredRelays, writeConfigFiles } from './config-files.js';

// trojan-gfw (Debian `trojan`, 1.16: C++, Boost.Asio, OpenSSL): its server,
// and its `forward` client relaying every connection to the target. Both
// speak TLS with a certificate made for the run, which the client verifies
// against localhost. The server must name a fallback (remote_addr) for
// connections that are not Trojan: none arrive in a run, so it names the
// discard port (9), which nothing serves on loopback, rather than one of
// the run's, whose server would take such a connection for a run's own. Readiness comes from the table of
// listening sockets; its log goes to stderr.
const NOTHING_SERVED = 9;
const TLS13_SUITES = 'TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384';
const TCP = { no_delay: true, keep_alive: true, reuse_port: false, fast_open: false, fast_open_qlen: 20 };

export const trojanServerConfig = ({ port, listen = '127.0.0.1', password, fallbackPort, cert, key }) => ({
  run_type: 'server',
  local_addr: listen,
  local_port: port,
  remote_addr: '127.0.0.1',
  remote_port: fallbackPort,
  password: [password],
  log_level: 2,
  ssl: {
    cert,
    key,
    key_password: '',
    cipher_tls13: TLS13_SUITES,
    prefer_server_cipher: true,
    alpn: ['http/1.1'],
    reuse_session: true,
    session_ticket: false,
    session_timeout: 600,
    plain_http_response: '',
    curves: '',
    dhparam: '',
  },
  tcp: { prefer_ipv4: false, ...TCP },
  mysql: { enabled: false },
});

export const trojanForwardConfig = ({ port, serverPort, server = '127.0.0.1', forwardPort, password, ca }) => ({
  run_type: 'forward',
  local_addr: '127.0.0.1',
  local_port: port,
  remote_addr: server,
  remote_port: serverPort,
  target_addr: '127.0.0.1',
  target_port: forwardPort,
  password: [password],
  udp_timeout: 60,
  log_level: 2,
  ssl: {
    verify: true,
    verify_hostname: true,
    cert: ca,
    cipher_tls13: TLS13_SUITES,
    sni: 'localhost',
    alpn: ['http/1.1'],
    reuse_session: true,
    session_ticket: false,
    curves: '',
  },
  tcp: TCP,
});

async function plan(reference, { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost }) {
  const { files, cleanup } = await writeConfigFiles('trojan-gfw', (folder) => {
    const { cert, key: keyFile } = writeCertificateFiles(folder);
    return {
      server: trojanServerConfig({
        port: ports.server,
        listen: serverBind,
        password: key,
        fallbackPort: NOTHING_SERVED,
        cert,
        key: keyFile,
      }),
      client: trojanForwardConfig({
        port: ports.client,
        serverPort: ports.server,
        server: serverHost,
        forwardPort: ports.target,
        password: key,
        ca: cert,
      }),
    };
  });
  const relays = configuredRelays({
    files,
    ports,
    file: found.trojan,
    args: (config) => ['-c', config],
    label: (role) => `trojan ${role === 'server' ? 'server' : 'forward'}`,
  });
  return { relays, entryPort: ports.client, cleanup };
}

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'trojan-gfw',
  fields: [],
  validate: () => [],
  label: () => 'trojan-gfw',
  hint: 'install it with `apt-get install trojan` (Debian/Ubuntu, 1.16) or put a trojan binary (github.com/trojan-gfw/trojan/releases) on PATH',
  locate: (reference, options) => findPrograms(['trojan'], options),
  version: { program: 'trojan', args: ['-v'], pattern: /trojan (\d\S*)/ },
  plan,
  // Its configuration and certificate are files on this host.
  remote: false,
};
