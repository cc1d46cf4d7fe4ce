// @ts-check
import { inputError } from '../../errors.js';
import { runCommand, runCommandSync } from '../../process/processes.js';
import { isServerSide } from '../server-side.js';
import { needsNetem } from './profiles.js';

// Two hosts on one machine: the relay client's side and the relay server's
// side, each a network namespace of its own, joined by a veth pair whose
// two ends are shaped as the profile says. Nothing here touches the
// machine's own interfaces: the pair lives only inside the namespaces, and
// deleting them removes it.
const CLIENT_ADDRESS = '10.203.0.1';
const SERVER_ADDRESS = '10.203.0.2';
const PREFIX = 30;
const NAME = /^cipherbench-(\d+)-(client|server)$/;

// Sets up the link; resolves with
//   { profile, clientNs, serverAddress, place(spec), wireBytes(), tearDown() }
// where place() puts a process spec ({ role, file, args, ... }) on its side.
// Rejects with an input error (exit 2) when the machine cannot: no
// iproute2, no privilege, a kernel without what the profile needs.
export async function setUpLink(profile) {
  await requireIproute2();
  await removeStaleNamespaces();
  const clientNs = `cipherbench-${process.pid}-client`;
  const serverNs = `cipherbench-${process.pid}-server`;
  const clientDev = `cb${process.pid}c`;
  const serverDev = `cb${process.pid}s`;
  const created = [];
  const tearDown = async () => {
    process.off('exit', tearDownNow);
    const names = created.splice(0);
    await Promise.all(names.map((name) => runCommand('ip', ['netns', 'del', name]).catch(() => {})));
  };
  // A run that crashes still leaves no namespace: 'exit' runs even then.
  const tearDownNow = () => {
    for (const name of created.splice(0)) {
      try {
        runCommandSync('ip', ['netns', 'del', name]);
      } catch {
        // Already gone, or never made: nothing is left either way.
      }
    }
  };
  process.on('exit', tearDownNow);
  try {
    for (const name of [clientNs, serverNs]) {
      await runCommand('ip', ['netns', 'add', name]).catch((error) => {
        throw /Operation not permitted|Permission denied/.test(error.message)
          ? inputError(
              `--link needs root or CAP_NET_ADMIN to make network namespaces (ip netns add said: ${error.stderr.trim()}); run as root, or without --link`,
            )
          : error;
      });
      created.push(name);
    }
    await runCommand('ip', [
      'link',
      'add',
      'name',
      clientDev,
      'netns',
      clientNs,
      'type',
      'veth',
      'peer',
      'name',
      serverDev,
      'netns',
      serverNs,
    ]);
    for (const [ns, dev, address] of [
      [clientNs, clientDev, CLIENT_ADDRESS],
      [serverNs, serverDev, SERVER_ADDRESS],
    ]) {
      await runCommand('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      await runCommand('ip', ['-n', ns, 'address', 'add', `${address}/${PREFIX}`, 'dev', dev]);
      // One MTU-sized packet per buffer, as a real link carries them: with
      // veth's default 64 KiB segments the shaper and the byte counters
      // would see one header where the wire has forty-four.
      await runCommand('ip', ['-n', ns, 'link', 'set', 'dev', dev, 'gso_max_segs', '1']);
      await runCommand('ip', ['-n', ns, 'link', 'set', dev, 'up']);
      await shape(ns, dev, profile);
    }
  } catch (error) {
    await tearDown();
    throw error;
  }
  return {
    profile,
    clientNs,
    serverNs,
    serverAddress: SERVER_ADDRESS,
    // `ip netns exec` enters the namespace and then execs the program
    // itself, so the pid the runner holds is the program's, for its CPU
    // and its stop.
    place: (spec) => ({
      ...spec,
      file: 'ip',
      args: ['netns', 'exec', isServerSide(spec.role) ? serverNs : clientNs, spec.file, ...spec.args],
    }),
    // Every byte the client's end of the link carried, both ways, headers
    // and all: what the wire cost, set against what the engine counted.
    async wireBytes() {
      const [device] = JSON.parse(
        await runCommand('ip', ['-n', clientNs, '-s', '-j', 'link', 'show', 'dev', clientDev]),
      );
      return device.stats64.rx.bytes + device.stats64.tx.bytes;
    },
    tearDown,
  };
}

// Each end shapes what it sends, so both directions get the profile. A
// delay is half the added round trip on each end; loss applies each way.
async function shape(ns, dev, profile) {
  const tc = (...args) => runCommand('tc', ['-n', ns, 'qdisc', 'add', 'dev', dev, ...args]);
  let parent = ['root', 'handle', '1:'];
  if (needsNetem(profile)) {
    const netem = ['limit', '100000'];
    if (profile.delayMs !== null)
      netem.push('delay', `${profile.delayMs / 2}ms`, ...(profile.jitterMs ? [`${profile.jitterMs / 2}ms`] : []));
    if (profile.lossPercent !== null) netem.push('loss', `${profile.lossPercent}%`);
    await tc(...parent, 'netem', ...netem).catch((error) => {
      throw /qdisc kind is unknown/.test(error.message)
        ? inputError(
            `--link ${profile.name}: this kernel has no netem queueing discipline (module sch_netem, CONFIG_NET_SCH_NETEM), which delay, jitter and loss need; a rate limit alone works here (e.g. --link rate=100mbit)`,
          )
        : error;
    });
    parent = ['parent', '1:1', 'handle', '10:'];
  }
  if (profile.rateBps !== null) {
    // The bucket holds at least one 64 KiB GSO segment, or tbf would drop
    // every segment the kernel hands it whole; else 10 ms at the rate.
    const burst = Math.max(128 * 1024, Math.ceil(profile.rateBps / 8 / 100));
    await tc(...parent, 'tbf', 'rate', `${Math.round(profile.rateBps)}bit`, 'burst', String(burst), 'latency', '100ms');
  }
}

async function requireIproute2() {
  for (const program of ['ip', 'tc']) {
    await runCommand(program, ['-V']).catch((error) => {
      throw inputError(
        /ENOENT/.test(error.message)
          ? '--link needs iproute2 (ip and tc): apt-get install iproute2'
          : `--link: ${error.message}`,
      );
    });
  }
}

// Namespaces left by a run that was killed outright (SIGKILL runs no
// handler) are removed once their run's process is gone.
async function removeStaleNamespaces() {
  const listed = await runCommand('ip', ['netns', 'list']).catch(() => '');
  const stale = listed
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter((name) => {
      const match = NAME.exec(name);
      return match && !isAlive(Number(match[1]));
    });
  await Promise.all(stale.map((name) => runCommand('ip', ['netns', 'del', name]).catch(() => {})));
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
