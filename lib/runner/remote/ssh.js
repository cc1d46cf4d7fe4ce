// @ts-check
import path from 'node:path';
import { CLI } from '../../process/cli-path.js';
import { inputError } from '../../errors.js';
import { runCommand } from '../../process/processes.js';
import { isServerSide } from '../server-side.js';
import { splitCommand } from '../../process/split-command.js';

// The server's half of every case on another host, over the system's ssh
// with the user's own configuration and keys: iperf3 -s (or the sink), the
// relay server (ours, or a peer's program of the same name there) and the
// latency probe's echo target. The client's half stays here.
//
// Each remote process runs under `ssh -tt`: when the runner stops its ssh
// (at the end of a run, on Ctrl-C, or when the runner dies and execa's
// cleanup kills its children) the remote pseudo-terminal closes and its
// process gets SIGHUP, so nothing is left running there.

// Words safe in a POSIX shell as they are; anything else is single-quoted.
const PLAIN_WORD = /^[\w@%+=:,./-]+$/;
const shellQuote = (words) =>
  words.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(' ');

// Connects once before the run: asks the remote cipherbench for its
// environment, which also proves ssh, Node.js and the same version are
// there. Resolves with { destination, serverAddress, serverBind,
// environment, place(spec) }; rejects with an input error (exit 2) saying
// what to fix.
export async function connectRemote({ destination, sshConfig = null, command = 'cipherbench', version }) {
  if (typeof destination !== 'string' || destination === '' || destination.startsWith('-')) {
    throw inputError(`--remote takes an ssh destination such as user@host, got ${JSON.stringify(destination)}`);
  }
  const cipherbench = splitCommand(command);
  if (cipherbench.error || cipherbench.words.length === 0)
    throw inputError(`--remote-cipherbench: ${cipherbench.error ?? 'empty command'}`);
  // BatchMode: a run must never stop at a password or host-key prompt.
  const ssh = ['-o', 'BatchMode=yes', ...(sshConfig ? ['-F', sshConfig] : [])];
  const address = await resolveHostName(ssh, destination);
  let environment;
  try {
    const out = await runCommand(
      'ssh',
      [...ssh, destination, '--', shellQuote([...cipherbench.words, 'environment'])],
      { timeoutMs: 60_000 },
    );
    environment = JSON.parse(out);
  } catch (error) {
    const said = error.stderr?.trim().split('\n').pop() || error.message;
    throw inputError(
      `--remote ${destination}: \`${command} environment\` failed there (${said}). The server's host needs Node.js and cipherbench ${version} (npm install -g cipherbench@${version}), or --remote-cipherbench saying how to run it there; ssh must log in without a prompt.`,
    );
  }
  if (environment.cipherbench !== version) {
    throw inputError(
      `--remote ${destination} runs cipherbench ${environment.cipherbench}, this host ${version}: both halves must be the same version`,
    );
  }
  const place = (spec) => {
    if (!isServerSide(spec.role)) return spec;
    const words = remoteWords(spec, cipherbench.words);
    return {
      ...spec,
      file: 'ssh',
      args: [...ssh, '-tt', destination, '--', shellQuote(['exec', ...words])],
      // The remote socket table is not readable from here; a server's
      // port accepting a connection is (a bare connect reaches no target).
      readiness: spec.readiness?.listening
        ? { connectable: { host: address, port: spec.readiness.listening } }
        : spec.readiness,
      remote: true,
    };
  };
  return { destination, serverAddress: address, serverBind: '0.0.0.0', environment, place };
}

// What `ssh -G` says the destination's host name is: the address the
// relay client dials and `direct` reaches.
async function resolveHostName(ssh, destination) {
  let config;
  try {
    config = await runCommand('ssh', [...ssh, '-G', destination]);
  } catch (error) {
    throw inputError(
      /ENOENT/.test(error.message)
        ? '--remote needs the ssh client (apt-get install openssh-client)'
        : `--remote ${destination}: ${error.stderr?.trim() || error.message}`,
    );
  }
  const hostname = /^hostname (\S+)$/m.exec(config)?.[1];
  if (!hostname) throw inputError(`--remote ${destination}: ssh -G named no host`);
  return hostname;
}

// Our own processes run as the remote cipherbench with the same arguments
// (Node's flags through NODE_OPTIONS); another program runs by its name on
// the remote PATH. A flag NODE_OPTIONS refuses (--no-concurrent-recompilation)
// would stop node from starting at all: it is left to the remote bin, which
// starts a relay again in a node with the relay flags it lacks.
function remoteWords(spec, cipherbench) {
  if (spec.file === process.execPath) {
    const at = spec.args.indexOf(CLI);
    const nodeFlags = spec.args.slice(0, at).filter((flag) => process.allowedNodeEnvironmentFlags.has(flag));
    const words = [...cipherbench, ...spec.args.slice(at + 1)];
    return nodeFlags.length > 0 ? ['env', `NODE_OPTIONS=${nodeFlags.join(' ')}`, ...words] : words;
  }
  return [path.basename(spec.file), ...spec.args];
}
