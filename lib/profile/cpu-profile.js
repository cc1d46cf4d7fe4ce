import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI } from '../process/cli-path.js';

// --profile: our relays run under V8's CPU profiler (node --cpu-prof), which
// writes a .cpuprofile when the relay exits (it does on SIGTERM); the run
// keeps the files and each relay's functions that took the most CPU.
// Only our relays: a reference row's relay is another program.

const TOP_FUNCTIONS = 6;

// Is this planned child one of our relays, started as `node [flags] CLI relay ...`?
const isOurRelay = (spec) =>
  spec.file === process.execPath && spec.args.includes(CLI) && spec.args[spec.args.indexOf(CLI) + 1] === 'relay';

// The relay specs with the profiler's flags added, and where each profile
// will be: { specs, files: { client, server } }; { specs, reference: true,
// name } for another implementation's relays, which perf samples instead;
// or { specs, reason } when the case cannot be profiled.
export async function profiledRelays(relays, { dir, name, remote }) {
  const ours = relays.filter(isOurRelay);
  if (relays.length === 0) return { specs: relays, files: null, reason: 'no relay to profile' };
  // Another implementation's relays: perf's to sample (perf-record.js).
  if (ours.length === 0) return { specs: relays, files: null, reference: true, name, reason: null };
  if (remote) return { specs: relays, files: null, reason: 'the relay server runs on the remote host: not profiled' };
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    return { specs: relays, files: null, reason: `cannot write the CPU profiles to ${dir}: ${error.message}` };
  }
  const files = {};
  const specs = relays.map((spec) => {
    if (!isOurRelay(spec)) return spec;
    const file = `${name}-relay-${spec.role}.cpuprofile`;
    files[spec.role] = path.join(dir, file);
    return { ...spec, args: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', file, ...spec.args] };
  });
  return { specs, files, reason: null };
}

// After the relays exited: { files, top: { client: [...], server: [...] },
// reason } where each top entry is { function, where, selfShare } by self
// time, highest first; reason says why a profile is missing.
export async function readProfiles(files) {
  const top = {};
  const missing = [];
  for (const [role, file] of Object.entries(files)) {
    try {
      top[role] = topFunctions(JSON.parse(await readFile(file, 'utf8')));
    } catch (error) {
      missing.push(
        `relay ${role}: ${error.code === 'ENOENT' ? 'wrote no profile (it did not exit cleanly)' : error.message}`,
      );
    }
  }
  return { files, top, reason: missing.length > 0 ? missing.join('; ') : null };
}

// Self time per function (samples that were in it, not in what it called),
// as DevTools' "Bottom-Up" view gives it, over the samples that were not
// idle: a relay waits for its sockets most of the time it is not working.
export function topFunctions(profile, count = TOP_FUNCTIONS) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let busy = 0;
  profile.samples.forEach((id, at) => {
    const { callFrame } = nodes.get(id);
    if (callFrame.functionName === '(idle)') return;
    const delta = profile.timeDeltas[at] ?? 0;
    busy += delta;
    const where = callFrame.url ? `${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}` : '';
    const key = `${callFrame.functionName || '(anonymous)'}\n${where}`;
    self.set(key, (self.get(key) ?? 0) + delta);
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, micros]) => {
      const [name, where] = key.split('\n');
      return { function: name, where, selfShare: busy > 0 ? micros / busy : 0 };
    });
}

// node:internal/... stays as is; our files from the package root; others by name.
function shortUrl(url) {
  if (!url.startsWith('file://')) return url;
  const file = new URL(url).pathname;
  const root = path.dirname(path.dirname(CLI));
  return file.startsWith(`${root}/`) ? path.relative(root, file) : path.basename(file);
}
