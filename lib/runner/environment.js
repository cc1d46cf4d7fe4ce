// @ts-check
import os from 'node:os';
import si from 'systeminformation';
import { runCommand } from '../process/processes.js';

// What a reader needs to compare two reports: the machine, the OS, the Node.js
// build and the iperf3 that measured. Only systeminformation's cheap calls are
// used, so collecting this costs well under a second before a run.
// With `wrkPath` (the request workload's engine was wrk) it says which wrk.
/** @returns {Promise<import('../contracts.js').Environment>} */
export async function collectEnvironment({ iperf3Path, wrkPath = null }) {
  const [cpu, cpuFlags, memory, osInfo, iperf3, wrk] = await Promise.all([
    si.cpu(),
    si.cpuFlags(),
    si.mem(),
    si.osInfo(),
    describeIperf3(iperf3Path),
    wrkPath && describeWrk(wrkPath),
  ]);
  return {
    cpu: {
      model: [cpu.manufacturer, cpu.brand].filter(Boolean).join(' '),
      cores: cpu.cores,
      physicalCores: cpu.physicalCores,
      aes: hasAesInstructions(cpuFlags),
    },
    memory: memory.total,
    os: {
      type: os.type(),
      platform: os.platform(),
      arch: os.arch(),
      release: os.release(),
      distro: describeDistro(osInfo),
    },
    node: { ...process.versions },
    iperf3,
    ...(wrk ? { wrk } : {}),
  };
}

// AES instructions decide which ciphers are fast, so a report must say whether
// they were there. An empty flag list means the OS did not tell (null), not no.
function hasAesInstructions(cpuFlags) {
  const flags = cpuFlags.toLowerCase().split(/\s+/).filter(Boolean);
  if (flags.length === 0) return null;
  return flags.includes('aes');
}

function describeDistro({ distro, release, codename }) {
  const name = [distro, release].filter(Boolean).join(' ');
  return name && codename ? `${name} (${codename})` : name;
}

// `iperf3 --version` prints 'iperf 3.12 (cJSON 1.7.15)' first; an iperf3 that
// will not say its version is still usable, so that is null, not an error.
async function describeIperf3(iperf3Path) {
  if (!iperf3Path) return { path: null, version: null };
  const stdout = await runCommand(iperf3Path, ['--version'], { timeoutMs: 1000 }).catch((error) => error.stdout);
  const version = /^iperf (\d[\w.+-]*)/m.exec(stdout)?.[1] ?? null;
  return { path: iperf3Path, version };
}

// `wrk --version` prints 'wrk 4.2.0 [epoll] Copyright ...' (Debian's:
// 'wrk debian/4.1.0-3+b2 [epoll]') and exits 1.
async function describeWrk(wrkPath) {
  const stdout = await runCommand(wrkPath, ['--version'], { timeoutMs: 1000 }).catch((error) => error.stdout);
  const version = /^wrk (\S+)/m.exec(stdout)?.[1] ?? null;
  return { path: wrkPath, version };
}
