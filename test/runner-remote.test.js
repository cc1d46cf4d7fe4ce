import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from './support/cli.js';
import { freePortsFlag, freeRunPorts, portsFlag } from './support/ports.js';
import { CLI } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// A second host on this machine: an OpenSSH server in a network namespace
// of the test's own, with a throw-away host key and client key, reached
// over a veth pair capped at 200 Mbit/s. cipherbench runs the server's
// half there over ssh, as it would on a real server.
const NS = `cipherbench-test-remote-${process.pid}`;
const HERE = '10.205.0.1';
const THERE = '10.205.0.2';
const DEVICE = `cbr${process.pid}`;
const SSHD = '/usr/sbin/sshd';
const ip = (...args) => execFileSync('ip', args, { encoding: 'utf8' });
const pidsIn = (ns) => ip('netns', 'pids', ns).split('\n').filter(Boolean).map(Number);
// A process's name from /proc/PID/stat, which a zombie still has (its
// cmdline reads empty); null once it is gone.
function commandName(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return null;
  }
}

// The namespace (and with it the veth pair holding HERE) of an earlier
// run of this file that was killed before its after() ran: HERE would be
// on two devices, and ssh to THERE would reach the dead one (seen:
// "Connection refused" in every test after a CI run was stopped by hand).
function removeNamespacesOfGoneRuns() {
  for (const line of ip('netns', 'list').split('\n')) {
    const pid = /^cipherbench-test-remote-(\d+)\b/.exec(line)?.[1];
    if (pid === undefined || Number(pid) === process.pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch {
      ip('netns', 'del', `cipherbench-test-remote-${pid}`);
    }
  }
}

function requireRootAndSsh(t) {
  if (!requirePrograms(t, 'ip', 'tc', 'ssh', 'ssh-keygen', 'iperf3')) return false;
  const missing = process.getuid?.() !== 0 ? 'root, to make a network namespace' : null;
  const sshd = (() => {
    try {
      execFileSync(SSHD, ['-V'], { stdio: 'ignore' });
      return true;
    } catch (error) {
      return error.code !== 'ENOENT';
    }
  })();
  const why = missing ?? (sshd ? null : `${SSHD} (apt-get install openssh-server)`);
  if (!why) return true;
  if (process.env.CI === 'true') throw new Error(`needs ${why}`);
  t.skip(`needs ${why}`);
  return false;
}

describe('the server half on another host, over ssh', { timeout: 120_000 }, () => {
  let dir;
  let sshd;
  let sshConfig;
  let ready = false;

  before(async () => {
    if (process.getuid?.() !== 0) return;
    try {
      execFileSync(SSHD, ['-V'], { stdio: 'ignore' });
    } catch (error) {
      if (error.code === 'ENOENT') return;
    }
    dir = mkdtempSync(path.join(tmpdir(), 'cipherbench-remote-'));
    const keygen = (file) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, file)]);
    keygen('host_key');
    keygen('client_key');
    writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'client_key.pub')));
    writeFileSync(
      path.join(dir, 'sshd_config'),
      [
        `ListenAddress ${THERE}`,
        `HostKey ${path.join(dir, 'host_key')}`,
        `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
        `PidFile ${path.join(dir, 'sshd.pid')}`,
        'PermitRootLogin prohibit-password',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'StrictModes no',
        '',
      ].join('\n'),
    );
    sshConfig = path.join(dir, 'ssh_config');
    writeFileSync(
      sshConfig,
      [
        'Host test-server',
        `  HostName ${THERE}`,
        '  User root',
        `  IdentityFile ${path.join(dir, 'client_key')}`,
        '  UserKnownHostsFile /dev/null',
        '  StrictHostKeyChecking no',
        '  LogLevel ERROR',
        'Host nothing-there',
        `  HostName ${THERE}`,
        '  Port 1',
        '',
      ].join('\n'),
    );
    // The CLI's own children run as root but in a folder of their own.
    chmodSync(dir, 0o755);
    removeNamespacesOfGoneRuns();
    ip('netns', 'add', NS);
    ip('link', 'add', 'name', DEVICE, 'type', 'veth', 'peer', 'name', `${DEVICE}r`, 'netns', NS);
    ip('address', 'add', `${HERE}/30`, 'dev', DEVICE);
    ip('link', 'set', DEVICE, 'up');
    ip('-n', NS, 'link', 'set', 'lo', 'up');
    ip('-n', NS, 'address', 'add', `${THERE}/30`, 'dev', `${DEVICE}r`);
    ip('-n', NS, 'link', 'set', `${DEVICE}r`, 'up');
    for (const [ns, dev] of [
      [null, DEVICE],
      [NS, `${DEVICE}r`],
    ]) {
      execFileSync('tc', [
        ...(ns ? ['-n', ns] : []),
        'qdisc',
        'add',
        'dev',
        dev,
        'root',
        'tbf',
        'rate',
        '200mbit',
        'burst',
        '262144',
        'latency',
        '100ms',
      ]);
    }
    mkdirSync('/run/sshd', { recursive: true });
    sshd = spawn('ip', ['netns', 'exec', NS, SSHD, '-D', '-e', '-f', path.join(dir, 'sshd_config')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`sshd did not start: ${said}`)), 10_000);
      sshd.stderr.setEncoding('utf8').on('data', (data) => {
        said += data;
        if (/Server listening on/.test(said)) {
          clearTimeout(timer);
          resolve();
        }
      });
      sshd.once('exit', (code) => reject(new Error(`sshd exited with ${code}: ${said}`)));
    });
    ready = true;
  });

  after(() => {
    sshd?.kill();
    if (dir) {
      try {
        ip('netns', 'del', NS);
      } catch {
        // Never made.
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const remoteArgs = () => [
    '--remote',
    'test-server',
    '--ssh-config',
    sshConfig,
    '--remote-cipherbench',
    `${process.execPath} ${CLI}`,
  ];

  test('a whole run: our chain and direct across, both hosts in the report, nothing left there', async (t) => {
    if (!requireRootAndSsh(t)) return;
    assert.ok(ready, 'the test host is up');
    const cases = path.join(dir, 'remote.cases.js');
    writeFileSync(
      cases,
      `export default ${JSON.stringify([
        [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
        { impl: 'direct' },
      ])};\n`,
    );
    // The relay server's and the target's ports are the remote host's: one
    // taken here, as a benchmark running on this host takes it, is no
    // conflict.
    const ports = await freeRunPorts();
    const local = net.createServer();
    await new Promise((resolve) => local.listen(ports.server, '127.0.0.1', resolve));
    t.after(() => local.close());
    const outcome = await runCli([
      'run',
      cases,
      ...remoteArgs(),
      ...portsFlag(ports),
      '--duration',
      '2',
      '--no-ceiling',
      '--latency',
      '--no-archive',
      '--json',
    ]);
    assert.equal(outcome.code, 0, outcome.stderr);
    const result = JSON.parse(outcome.stdout);
    assert.equal(result.environment.remote.destination, 'test-server');
    assert.equal(result.environment.remote.address, THERE);
    assert.equal(result.options.remote.destination, 'test-server');
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', caseResult.reason);
      const bps = caseResult.receiver.bits_per_second;
      assert.ok(bps <= 200e6 * 1.05 && bps > 50e6, `${bps} bit/s across a 200 Mbit/s link`);
      // The relay server's CPU is the remote host's, not readable here.
      assert.equal(caseResult.cost, null);
    }
    assert.ok(result.cases[0].latency.rtt.count > 0);
    assert.match(outcome.stderr, new RegExp(`Server host \\(test-server, ${THERE.replaceAll('.', '\\.')}\\):`));
    // Only sshd itself is left in the remote namespace. An ssh session's
    // own sshd may still be ending as the list is read, and our commands
    // there stop in order on the SIGHUP the session's end sends them: they
    // get a few seconds to finish, and must be gone then.
    const others = () => pidsIn(NS).filter((pid) => pid !== sshd.pid && ![null, 'sshd'].includes(commandName(pid)));
    const deadline = Date.now() + 5000;
    while (others().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(others(), [], 'no relay, iperf3 or echo target outlives the run there');
  });

  test('another cipherbench version on the remote host: one line, exit 2', async (t) => {
    if (!requireRootAndSsh(t)) return;
    const fake = path.join(dir, 'old-cipherbench.mjs');
    writeFileSync(fake, 'console.log(JSON.stringify({ cipherbench: "0.0.1" }));\n');
    const args = remoteArgs();
    args[args.length - 1] = `${process.execPath} ${fake}`;
    const outcome = await runCli(['run', ...args, ...(await freePortsFlag()), '--no-archive']);
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.match(
      outcome.stderr,
      /test-server runs cipherbench 0\.0\.1, this host \d+\.\d+\.\d+: both halves must be the same version/,
    );
  });

  test('a host ssh cannot reach: one line, exit 2, before anything starts', async (t) => {
    if (!requireRootAndSsh(t)) return;
    const args = remoteArgs();
    args[1] = 'nothing-there';
    const outcome = await runCli(['run', ...args, ...(await freePortsFlag()), '--no-archive']);
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.match(
      outcome.stderr,
      /^cipherbench: --remote nothing-there: `.*environment` failed there \(.*Connection refused\)/,
    );
  });
});
