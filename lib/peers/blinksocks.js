// @ts-check
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LEGACY_FLAG } from '../crypto/legacy-provider.js';
import { chainLabel } from '../chain/label.js';
import { nearestHint } from '../nearest-name.js';
import { isPlainObject } from '../plain-object.js';
import { writeCertificateFiles } from './certificate-files.js';
import { configuredRelays, writeConfigFiles } from './config-files.js';
import { methodHint } from './method-field.js';
import { MUX_FIELDS, muxProblems } from './mux-fields.js';
import { fieldProblem, oneOf } from './reference-fields.js';
import { TRANSPORT_PATH } from './xray-sing-box-fields.js';

// blinksocks 3.x, the Node.js proxy framework cipherbench's presets and
// report come from, run from its own package: `blinksocks -c FILE.json`, a
// server config ({ service, key, presets }) and a client config whose
// `tcp://` service forwards every connection to one address. It is never a
// dependency: it is found in the folder cipherbench runs in, or in the
// folder CIPHERBENCH_BLINKSOCKS names (where `npm install blinksocks@3` put
// it), so a person can compare against it without it being installed here.
// `transport` is its service URL's scheme: tcp (the default), ws and wss
// (the `ws` package, on TRANSPORT_PATH, as our ws chains default to) or
// tls, with a certificate made for the run that its client trusts.
// `mux: true` turns on its multiplexing at both ends (`mux: true` in both
// configs; our blinksocks-mux preset speaks it), `concurrency` its client's
// mux_concurrency: the tunnel connections it keeps (default 10), each
// connection put on one of them at random.

// 3.3.0's built-in presets ('mux' is internal to it) and, for the two
// Shadowsocks ones, its methods. It refuses chacha20-ietf on any Node.js
// but 10, a version check that blinksocks-any-node.cjs lifts; RC4 (the rc4
// methods, and ShadowsocksR's auth_chain inside) needs OpenSSL's legacy
// provider, as ours does.
const PRESETS = [
  'base-auth',
  'ss-base',
  'ss-stream-cipher',
  'ss-aead-cipher',
  'ssr-auth-aes128-md5',
  'ssr-auth-aes128-sha1',
  'ssr-auth-chain-a',
  'ssr-auth-chain-b',
  'v2ray-vmess',
  'obfs-random-padding',
  'obfs-http',
  'obfs-tls1.2-ticket',
  'aead-random-cipher',
];
const METHODS = {
  'ss-stream-cipher': [
    'aes-128-ctr',
    'aes-192-ctr',
    'aes-256-ctr',
    'aes-128-cfb',
    'aes-192-cfb',
    'aes-256-cfb',
    'camellia-128-cfb',
    'camellia-192-cfb',
    'camellia-256-cfb',
    'rc4-md5',
    'rc4-md5-6',
    'none',
    'chacha20-ietf',
  ],
  'ss-aead-cipher': [
    'aes-128-gcm',
    'aes-192-gcm',
    'aes-256-gcm',
    'chacha20-poly1305',
    'chacha20-ietf-poly1305',
    'xchacha20-ietf-poly1305',
  ],
};
// Params blinksocks 3.3.0 does not check at start but crashes without on the
// first connection.
const REQUIRED = {
  'aead-random-cipher': ['method'],
  'obfs-tls1.2-ticket': ['sni'],
  'obfs-http': ['file'],
  'v2ray-vmess': ['id'],
};

const TRANSPORTS = ['tcp', 'ws', 'wss', 'tls'];

function validate({ presets, transport = 'tcp', mux, concurrency }) {
  const badTransport = oneOf('transport', transport, TRANSPORTS, {
    elsewhere: { httpupgrade: 'xray', grpc: 'xray' },
  });
  if (badTransport) return [badTransport];
  const badMux = muxProblems({ mux, concurrency });
  if (badMux.length > 0) return badMux;
  // core/mux-relay.js getBounds maps tcp, tls and ws, not wss.
  if (mux && transport === 'wss')
    return [
      fieldProblem(
        'mux',
        "blinksocks 3.3.0's mux does not run over wss (its client exits at the first connection): give transport 'ws' or 'tls', or drop mux",
      ),
    ];
  if (!Array.isArray(presets) || presets.length === 0) {
    return [
      {
        field: 'presets',
        message:
          'must be a non-empty array of blinksocks presets, e.g. [{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]',
      },
    ];
  }
  return presets.flatMap((preset, at) => {
    const field = `presets[${at}]`;
    if (!isPlainObject(preset)) return [{ field, message: 'must be an object like {"name":"ss-base"}' }];
    if (!PRESETS.includes(preset.name)) {
      return [
        {
          field: `${field}.name`,
          message: `unknown blinksocks preset ${JSON.stringify(preset.name)}${nearestHint(preset.name, PRESETS)}; valid: ${PRESETS.join(', ')}`,
        },
      ];
    }
    if (preset.params !== undefined && !isPlainObject(preset.params))
      return [{ field: `${field}.params`, message: 'must be an object' }];
    const missing = (REQUIRED[preset.name] ?? []).filter((param) => preset.params?.[param] === undefined);
    if (missing.length > 0) {
      return [
        {
          field: `${field}.params.${missing[0]}`,
          message: 'missing: blinksocks starts without it and fails at the first connection',
        },
      ];
    }
    const methods = METHODS[preset.name];
    const method = preset.params?.method;
    if (!methods || method === undefined) return [];
    if (!methods.includes(method)) {
      return [
        {
          field: `${field}.params.method`,
          message: `blinksocks does not support ${JSON.stringify(method)} in ${preset.name}${methodHint(method, methods)}; valid: ${methods.join(', ')}`,
        },
      ];
    }
    return [];
  });
}

// 'blinksocks aes-256-gcm' for ss-base and one Shadowsocks cipher, as the
// libev row reads; any other chain as the reports label ours:
// 'blinksocks base-auth + obfs-random-padding + ss-aead-cipher(aes-256-gcm)'.
function label({ presets, transport = 'tcp', mux }) {
  const [base, cipher, ...rest] = presets;
  const plainShadowsocks =
    rest.length === 0 &&
    base?.name === 'ss-base' &&
    !base.params &&
    METHODS[cipher?.name] &&
    Object.keys(cipher.params ?? {}).join() === 'method';
  const over = transport === 'tcp' ? '' : ` + ${transport}`;
  return `blinksocks ${plainShadowsocks ? cipher.params.method : chainLabel(presets)}${over}${mux ? ' + mux' : ''}`;
}

const usesRc4 = (presets) =>
  presets.some(
    (preset) => String(preset.params?.method ?? '').startsWith('rc4') || preset.name.startsWith('ssr-auth-chain'),
  );
const usesStreamChacha = (presets) =>
  presets.some((preset) => preset.name === 'ss-stream-cipher' && preset.params?.method === 'chacha20-ietf');
const ANY_NODE = fileURLToPath(new URL('./blinksocks-any-node.cjs', import.meta.url));

// The blinksocks a run would use: CIPHERBENCH_BLINKSOCKS's, else the one
// the current folder resolves, as `require('blinksocks')` there would.
async function locate(reference, { env = process.env, cwd = process.cwd() } = {}) {
  const folders = [env.CIPHERBENCH_BLINKSOCKS, cwd].filter(Boolean).map((folder) => path.resolve(cwd, folder));
  for (const folder of folders) {
    let manifest;
    try {
      manifest = createRequire(path.join(folder, 'noop.js')).resolve('blinksocks/package.json');
    } catch {
      continue;
    }
    const { version, bin } = JSON.parse(readFileSync(manifest, 'utf8'));
    if (!/^3\./.test(version))
      return { missing: `blinksocks ${version} found at ${path.dirname(manifest)}, but cipherbench runs 3.x` };
    const start = path.resolve(path.dirname(manifest), typeof bin === 'string' ? bin : bin.blinksocks);
    return { found: { blinksocks: start, version } };
  }
  return { missing: `the blinksocks package cannot be resolved from ${folders.join(' or ')}` };
}

// The two configs, with blinksocks's log files (and for wss and tls a
// certificate for the server's host) beside them, in a folder removed when
// the run ends. Quiet logging: no line a connection, so readiness comes
// from the listening table.
async function plan({ presets, transport = 'tcp', mux, concurrency }, { ports, key, found, serverHost = '127.0.0.1' }) {
  const common = { log_level: 'warn', timeout: 600 };
  const pathname = transport.startsWith('ws') ? TRANSPORT_PATH : '';
  const server = {
    service: `${transport}://${serverHost}:${ports.server}${pathname}`,
    key,
    presets,
    ...(mux ? { mux: true } : {}),
  };
  const tunnels = mux && concurrency ? { mux_concurrency: concurrency } : {};
  const { files, cleanup } = await writeConfigFiles('blinksocks', (folder) => {
    const secured = ['wss', 'tls'].includes(transport);
    const certificate = secured
      ? writeCertificateFiles(folder, { hosts: ['localhost', '127.0.0.1', serverHost] })
      : null;
    return {
      server: {
        ...server,
        ...(certificate ? { tls_cert: certificate.cert, tls_key: certificate.key } : {}),
        ...common,
        log_path: path.join(folder, 'server.log'),
      },
      client: {
        service: `tcp://127.0.0.1:${ports.client}?forward=127.0.0.1:${ports.target}`,
        server: {
          ...server,
          ...tunnels,
          ...(certificate ? { tls_cert: certificate.cert, tls_cert_self_signed: true } : {}),
        },
        ...common,
        log_path: path.join(folder, 'client.log'),
      },
    };
  });
  const flags = [
    ...(usesRc4(presets) ? [LEGACY_FLAG] : []),
    ...(usesStreamChacha(presets) ? ['--require', ANY_NODE] : []),
  ];
  const relays = configuredRelays({
    files,
    ports,
    file: process.execPath,
    args: (config) => [...flags, found.blinksocks, '-c', config],
    label: (role) => `blinksocks ${role}`,
  });
  return { relays, entryPort: ports.client, cleanup };
}

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'blinksocks',
  fields: ['presets', 'transport', ...MUX_FIELDS],
  validate,
  label,
  hint: 'install it with `npm install blinksocks@3` in the folder you run cipherbench from, or set CIPHERBENCH_BLINKSOCKS to a folder where it is installed',
  locate,
  plan,
  remote: false,
};
