import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { selfSignedCertificate } from '../crypto/self-signed-certificate.js';

// TLS as the chain's transport, on node:tls (OpenSSL's record layer): the
// relay server wraps each accepted socket in a TLS server, the relay client
// each connection to it in a TLS client, and the chain's other presets
// carry their bytes inside. It frames nothing itself, so it has no stages:
// what it gives the relay is transport(params) (chain/transport.js).
export const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];
const VERSIONS = { 1.3: 'TLSv1.3', 1.2: 'TLSv1.2' };
// OpenSSL's names of the TLS 1.2 suites this Node offers, in lower case as
// getCiphers() gives them; TLS 1.3's start with TLS_.
const TLS12_SUITES = new Set(tls.getCiphers().filter((name) => !name.startsWith('tls_')));

const suitesOf = (ciphers) => (Array.isArray(ciphers) ? ciphers : String(ciphers).split(':'));

function readPem(file, parse, what) {
  let text;
  try {
    text = readFileSync(file);
  } catch (error) {
    return { problem: `cannot read ${what} file ${JSON.stringify(file)} (${error.code ?? error.message})` };
  }
  try {
    return { value: parse(text) };
  } catch {
    return { problem: `${JSON.stringify(file)} holds no PEM ${what}` };
  }
}

const fileCheck = (parse, what) => (value) =>
  typeof value === 'string' && value !== ''
    ? readPem(value, parse, what).problem
    : `must be the path of a PEM ${what} file`;
const certificate = (text) => new X509Certificate(text);

// Rules between parameters: a suite list of the version asked for, a key
// that is the certificate's.
function paramsProblems({ version = '1.3', ciphers, cert, key }) {
  const problems = [];
  if (ciphers !== undefined && (typeof ciphers === 'string' || Array.isArray(ciphers))) {
    const unknown = suitesOf(ciphers).filter((suite) =>
      version === '1.3' ? !TLS13_SUITES.includes(suite) : !TLS12_SUITES.has(String(suite).toLowerCase()),
    );
    if (unknown.length > 0) {
      const valid =
        version === '1.3'
          ? TLS13_SUITES.join(', ')
          : 'OpenSSL names such as ECDHE-RSA-AES128-GCM-SHA256, ECDHE-ECDSA-CHACHA20-POLY1305 (`openssl ciphers -v`)';
      problems.push({
        param: 'ciphers',
        message: `unknown TLS ${VERSIONS[version] ? version : '1.3'} suite ${JSON.stringify(unknown[0])}; valid: ${valid}`,
      });
    }
  }
  if ((cert === undefined) !== (key === undefined)) {
    problems.push({
      param: cert === undefined ? 'cert' : 'key',
      message: 'cert and key go together: give both PEM files, or neither for a self-signed certificate made at start',
    });
  } else if (cert !== undefined) {
    const x509 = readPem(cert, certificate, 'certificate').value;
    const privateKey = readPem(key, createPrivateKey, 'private key').value;
    if (x509 && privateKey && !x509.checkPrivateKey(privateKey))
      problems.push({
        param: 'key',
        message: `${JSON.stringify(key)} is not the private key of ${JSON.stringify(cert)}`,
      });
  }
  return problems;
}

function contextOptions({ version = '1.3', ciphers, alpn }) {
  const options = { minVersion: VERSIONS[version], maxVersion: VERSIONS[version] };
  if (ciphers !== undefined) options.ciphers = suitesOf(ciphers).join(':');
  // A 1.2 list alone would leave 1.3's suites at their defaults: harmless,
  // since the version is pinned.
  if (alpn !== undefined) options.ALPNProtocols = Array.isArray(alpn) ? alpn : [alpn];
  return options;
}

// A TLS socket's handle is OpenSSL's, not TCP's, so it cannot send a TCP
// reset itself: the socket under it does, as the relay resets any other.
// Not at once: a reset asked for while node's TLS layer is handing on
// what it decrypted (an HTTP/2 session's data, a stream error passed on
// in that same callback) freed the TCP stream under it, and node 20
// crashed with SIGSEGV in TLSWrap::ClearOut when it read on (h2 inside
// tls, about 1 run in 10 of a bulk case; docs/notes/grpc-h2.md).
function resettable(secure, raw) {
  let asked = false;
  secure.resetAndDestroy = () => {
    if (asked) return secure;
    asked = true;
    setImmediate(() => {
      if (!raw.destroyed) raw.resetAndDestroy();
      secure.destroy();
    });
    return secure;
  };
  return secure;
}

const describe = (socket, verified) =>
  `${socket.getProtocol()} ${socket.getCipher()?.standardName}${socket.alpnProtocol ? ` alpn ${socket.alpnProtocol}` : ''}${verified}`;

export default {
  name: 'tls',
  summary:
    'TLS transport on node:tls (OpenSSL): 1.3 by default, 1.2 on request; a self-signed certificate when the server is given none',
  roles: ['transport'],
  authenticated: true,
  params: {
    cert: {
      required: false,
      description: 'server: PEM certificate file (with key; default: a self-signed one made at start)',
      check: fileCheck(certificate, 'certificate'),
    },
    key: {
      required: false,
      description: 'server: PEM private key file of cert',
      check: fileCheck(createPrivateKey, 'private key'),
    },
    sni: {
      required: false,
      description: 'client: the server name it asks for and verifies (default localhost)',
      check: (value) =>
        typeof value === 'string' && /^[A-Za-z0-9.:-]{1,253}$/.test(value)
          ? undefined
          : 'must be a host name or IP address, e.g. "localhost"',
    },
    ca: {
      required: false,
      description: "client: PEM certificate file to trust (default: the system's)",
      check: fileCheck(certificate, 'certificate'),
    },
    insecure: {
      required: false,
      description: 'client: true to accept any certificate (no verification)',
      check: (value) => (typeof value === 'boolean' ? undefined : 'must be true or false'),
    },
    alpn: {
      required: false,
      description: 'ALPN protocol name or list, e.g. "h2" or ["h2", "http/1.1"]',
      check: (value) =>
        [value].flat().every((name) => typeof name === 'string' && name.length > 0 && name.length < 256) &&
        [value].flat().length > 0
          ? undefined
          : 'must be a protocol name or a list of them, e.g. ["h2", "http/1.1"]',
    },
    version: { required: false, values: Object.keys(VERSIONS), description: 'TLS version (default 1.3)' },
    ciphers: {
      required: false,
      description: `suites, a list or colon-separated: for 1.3 of ${TLS13_SUITES.join(', ')}; for 1.2 OpenSSL names`,
      check: (value) =>
        (typeof value === 'string' && value !== '') ||
        (Array.isArray(value) && value.length > 0 && value.every((suite) => typeof suite === 'string'))
          ? undefined
          : 'must be a suite name, a colon-separated list or an array of them',
    },
  },
  paramsProblems,
  // A run's relays get a certificate made for the run, which the client
  // trusts, unless the chain names its own or asks for no verification.
  forRun(params, files) {
    if (params.cert || params.ca || params.insecure) return params;
    const { cert, key } = files();
    return { ...params, cert, key, ca: cert };
  },
  prepare() {
    return () => ({});
  },
  // { accept(socket), connect(socket) } -> the TLS socket over it; `note`
  // hears what each connection negotiated (a version, a suite).
  transport(params, { note = () => {} } = {}) {
    const common = contextOptions(params);
    let serverContext = null;
    const secureContext = () => {
      if (serverContext) return serverContext;
      const pair = params.cert
        ? { cert: readFileSync(params.cert), key: readFileSync(params.key) }
        : selfSignedCertificate();
      serverContext = tls.createSecureContext({ ...pair, ...common });
      return serverContext;
    };
    const sni = params.sni ?? 'localhost';
    // One context for every connection: given options instead, tls.connect
    // builds a context (and loads the CA store) for each connection, about
    // 0.5 ms of CPU here, a sixth of what a whole handshake costs.
    const clientContext = tls.createSecureContext({ ...common, ca: params.ca ? readFileSync(params.ca) : undefined });
    const verified = params.insecure ? ', certificate not verified (insecure)' : ', certificate verified';
    return {
      accept(raw) {
        const secure = new tls.TLSSocket(raw, {
          isServer: true,
          secureContext: secureContext(),
          ALPNProtocols: common.ALPNProtocols,
        });
        secure.once('secure', () => note(describe(secure, '')));
        return resettable(secure, raw);
      },
      connect(raw) {
        const secure = tls.connect({
          socket: raw,
          host: sni,
          // RFC 6066 names hosts only: an IP address is verified, not sent.
          servername: net.isIP(sni) ? undefined : sni,
          secureContext: clientContext,
          ALPNProtocols: common.ALPNProtocols,
          rejectUnauthorized: !params.insecure,
          allowHalfOpen: true,
        });
        let secured = false;
        secure.once('secureConnect', () => {
          secured = true;
          note(describe(secure, verified));
        });
        // Registered before the relay's own listener, so the line that
        // reaches a failed case's reason says which layer refused.
        secure.prependListener('error', (error) => {
          if (!secured) error.message = `TLS handshake with ${sni} failed: ${error.message}`;
        });
        return resettable(secure, raw);
      },
    };
  },
};
