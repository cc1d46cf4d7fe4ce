import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { parseLinkProfile } from '../../lib/runner/link/profiles.js';
import { run } from '../../lib/index.js';
import { runCli, waitFor } from '../support/cli.js';
import { CLI } from '../support/processes.js';
import { requirePrograms } from '../support/programs.js';

// In test/serial/: a run across a shaped link checks its bitrate against
// the cap and probes latency across it, which a neighbour's CPU load
// disturbs (the probe came back empty once with files running beside it).
const AEAD = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const ip = (...args) => execFileSync('ip', args, { encoding: 'utf8' });
// The link namespaces a run left behind: those of this process (run() in
// process) or of one that has exited (a CLI run), never those of another test
// file running beside this one, nor runner-remote's own.
const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};
const ourNamespaces = () =>
  ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter((name) => {
      const [, pid] = /^cipherbench-(\d+)-(client|server)$/.exec(name) ?? [];
      return pid !== undefined && (Number(pid) === process.pid || !isAlive(Number(pid)));
    });

// Making namespaces needs root (or CAP_NET_ADMIN), which CI has; a
// developer's unprivileged shell may only skip, saying so.
function requireRoot(t) {
  if (!requirePrograms(t, 'ip', 'tc')) return false;
  if (process.getuid?.() === 0) return true;
  const message = 'needs root to make network namespaces';
  if (process.env.CI === 'true') throw new Error(message);
  t.skip(message);
  return false;
}

// No package can add a kernel module: on a kernel without netem the tests
// that need it skip, under CI too, saying so.
function kernelHasNetem() {
  const ns = `cipherbench-netem-probe-${process.pid}`;
  ip('netns', 'add', ns);
  try {
    execFileSync('tc', ['-n', ns, 'qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    ip('netns', 'del', ns);
  }
}

describe('link profiles', () => {
  test('named profiles and the free form', () => {
    assert.deepEqual(parseLinkProfile('wan'), {
      name: 'wan',
      rateBps: 100e6,
      delayMs: 40,
      jitterMs: null,
      lossPercent: 0.1,
    });
    assert.deepEqual(parseLinkProfile('delay=40ms,jitter=5ms,loss=0.5%,rate=1.5gbit'), {
      name: 'delay=40ms,jitter=5ms,loss=0.5%,rate=1.5gbit',
      rateBps: 1.5e9,
      delayMs: 40,
      jitterMs: 5,
      lossPercent: 0.5,
    });
    assert.equal(parseLinkProfile('delay=1s').delayMs, 1000);
  });

  test('a mistaken profile says what is wrong, as bad input', () => {
    for (const [text, pattern] of [
      ['moon', /neither a profile \(lan, wan, mobile, satellite\) nor KEY=VALUE pairs/],
      ['rate=100mbps', /rate "100mbps" must be a number of bit, kbit, mbit or gbit/],
      ['rate=1kbit', /outside 8kbit to 100gbit/],
      ['delay=40', /delay "40" must be a time in us, ms or s/],
      ['loss=100%', /loss "100%" must be a percentage under 100%/],
      ['jitter=5ms', /jitter varies a delay/],
      ['rate=1mbit,rate=2mbit', /rate given twice/],
      ['speed=1mbit', /unknown setting "speed"/],
      ['__proto__', /neither a profile/],
    ]) {
      assert.throws(
        () => parseLinkProfile(text),
        (error) => error.exitCode === 2 && pattern.test(error.message),
        text,
      );
    }
  });
});

describe('a run across a shaped link', { timeout: 120_000 }, () => {
  test('a rate limit caps the bitrate, the wire cost is measured, and nothing is left behind', async (t) => {
    if (!requireRoot(t)) return;
    const result = await run({
      cases: [AEAD, { impl: 'direct' }],
      link: 'rate=40mbit',
      duration: 2,
      repeat: 1,
      remeasure: 0,
      ceiling: false,
      latency: true,
      engine: 'node',
    });
    assert.deepEqual(ourNamespaces(), []);
    assert.equal(result.options.link.rateBps, 40e6);
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', caseResult.reason);
      const bps = caseResult.receiver.bits_per_second;
      assert.ok(
        bps <= 40e6 * 1.05 && bps > 20e6,
        `${caseResult.label ?? 'chain'}: ${bps} bit/s under a 40 Mbit/s link`,
      );
      // TCP/IP headers and acks alone cost a few percent on 1500-byte frames.
      assert.ok(
        caseResult.wire.overhead > 0.02 && caseResult.wire.overhead < 0.2,
        `overhead ${caseResult.wire.overhead}`,
      );
    }
    assert.ok(result.cases[0].latency.rtt.count > 0, 'the latency probe ran across the link');
  });

  test('netem delay adds to the round trip and a lossy link still carries a case (where the kernel has netem)', async (t) => {
    if (!requireRoot(t)) return;
    if (!kernelHasNetem()) {
      t.skip('this kernel has no netem (CONFIG_NET_SCH_NETEM): delay and loss cannot be shaped here');
      return;
    }
    const result = await run({
      cases: [AEAD],
      link: 'delay=40ms,loss=1%,rate=50mbit',
      duration: 2,
      repeat: 1,
      remeasure: 0,
      ceiling: false,
      latency: true,
      engine: 'node',
    });
    const [caseResult] = result.cases;
    assert.equal(caseResult.status, 'ok', caseResult.reason);
    assert.ok(caseResult.latency.rtt.p50 >= 40, `rtt p50 ${caseResult.latency.rtt.p50} ms over a 40 ms link`);
  });

  test('without netem, a profile that needs it is bad input naming the module, and leaves nothing', async (t) => {
    if (!requireRoot(t)) return;
    if (kernelHasNetem()) {
      t.skip('this kernel has netem: the message for its absence cannot be shown here');
      return;
    }
    await assert.rejects(
      run({ cases: [AEAD], link: 'wan', duration: 1, ceiling: false }),
      (error) => error.exitCode === 2 && /no netem queueing discipline \(module sch_netem/.test(error.message),
    );
    assert.deepEqual(ourNamespaces(), []);
  });

  test('Ctrl-C during a run on a link removes its namespaces', async (t) => {
    if (!requireRoot(t)) return;
    const outcome = await runCli(
      ['run', '--link', 'rate=50mbit', '--filter', 'aes-256-gcm', '--duration', '10', '--no-ceiling', '--no-archive'],
      {
        during: async (child, output) => {
          await waitFor(() => output().stderr + output().stdout, /\[run 1\/\d+\]/);
          process.kill(-child.pid, 'SIGINT');
        },
      },
    );
    assert.equal(outcome.code, 130, outcome.stderr);
    assert.deepEqual(ourNamespaces(), []);
  });

  test('namespaces a killed run left behind are removed by the next run', async (t) => {
    if (!requireRoot(t)) return;
    // A pid that is not running: the kernel's pid_max is far below this.
    const stale = 'cipherbench-4999999-server';
    ip('netns', 'add', stale);
    t.after(() => ip('netns', 'list').includes(stale) && ip('netns', 'del', stale));
    const result = await run({
      cases: [{ impl: 'direct' }],
      link: 'rate=100mbit',
      duration: 1,
      repeat: 1,
      remeasure: 0,
      ceiling: false,
      engine: 'node',
    });
    assert.equal(result.cases[0].status, 'ok', result.cases[0].reason);
    assert.deepEqual(ourNamespaces(), []);
  });

  test('without the privilege: one line and exit 2', async (t) => {
    if (!requireRoot(t) || !requirePrograms(t, 'setpriv')) return;
    const outcome = await runCli(['run', '--link', 'rate=10mbit', '--no-archive'], {
      // Root without the capabilities a namespace needs: the same files stay
      // readable wherever the clone lives.
      command: 'setpriv',
      commandArgs: ['--bounding-set=-net_admin,-sys_admin', '--inh-caps=-net_admin,-sys_admin', process.execPath, CLI],
    });
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.match(outcome.stderr, /--link needs root or CAP_NET_ADMIN/);
    assert.equal(outcome.stderr.trim().split('\n').length, 1, outcome.stderr);
  });
});
