import { inputError } from '../errors.js';
import { measureRequests } from './request-load.js';
import { findWrk, measureWithWrk, WRK_KINDS } from './wrk.js';

// What loads a case in the request workload (docs/requests.md, "The
// engines"), chosen once for a whole run so that every row is measured by
// the same client: wrk where it can speak every case's inbound, else the
// built-in Node client (traffic/request-load.js), which speaks them all.
//   'wrk'   wrk, an input error when it is missing or a case's inbound is
//           one it cannot speak
//   'node'  the built-in client
//   'auto'  wrk when installed and able, else node, saying why
// Each engine's measure() resolves with the figures of traffic/request-load.js
// plus generatorCpuSeconds, what the load generator itself spent on the
// counted part of the run, or with { reason } when it could not measure.
export async function chooseRequestEngine({ engine = 'auto', cases, wrkPath, env = process.env }) {
  const unspoken = cases.find((selection) => !WRK_KINDS.includes(inboundOf(selection)));
  const cannot = unspoken && `case ${unspoken.index} has the ${inboundOf(unspoken)} inbound, which wrk does not speak`;
  if (engine === 'node') return nodeRequestEngine();
  if (engine === 'wrk' || wrkPath) {
    if (cannot) throw inputError(`--engine wrk: ${cannot}: run with --engine node, whose client speaks every inbound`);
    return wrkRequestEngine(await findWrk({ wrkPath, env }));
  }
  if (cannot) return nodeRequestEngine(cannot);
  try {
    return wrkRequestEngine(await findWrk({ env }));
  } catch (error) {
    if (error.exitCode === undefined) throw error;
    return nodeRequestEngine('wrk is not installed');
  }
}

export const inboundOf = (selection) => selection.inbound ?? 'tunnel';

const wrkRequestEngine = (path) => ({
  name: 'wrk',
  path,
  reason: null,
  measure: (options) => measureWithWrk({ wrkPath: path, ...options }),
});

// The built-in client runs in this process: its CPU is this process's
// over the counted part of the run (the runner does little else then).
const nodeRequestEngine = (reason = null) => ({
  name: 'node',
  path: process.execPath,
  reason,
  measure: async ({ onMeasuring = () => {}, ...options }) => {
    let counted = null;
    let measuring = Promise.resolve();
    const figures = await measureRequests({
      ...options,
      onMeasuring: () => {
        counted = process.cpuUsage();
        measuring = onMeasuring();
      },
    });
    const spent = process.cpuUsage(counted ?? undefined);
    await measuring;
    return { ...figures, generatorCpuSeconds: counted ? (spent.user + spent.system) / 1e6 : null };
  },
});
