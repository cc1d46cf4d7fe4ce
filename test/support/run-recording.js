import { run } from '../../lib/index.js';

// run() with an observer that keeps every event and every child's pid, so a
// test can check the order of what happened and that no process outlived
// the run; `on` lets it act on events (kill a relay, stop one) as they come.
// One second a run, no cipher ceilings (half a second a chain) and no
// noise floor (three direct runs) unless a test asks for them.
export async function runRecording(options, on = () => {}) {
  const events = [];
  const pids = [];
  const result = await run({
    duration: 1,
    ceiling: false,
    noiseFloor: 0,
    ...options,
    onEvent(event) {
      events.push(event);
      if (event.type === 'process-started') pids.push(event.pid);
      on(event);
    },
  });
  return { result, events, pids };
}

// What a case of a real run warns of that no test controls: a run during
// which the hypervisor gave more than 5% of the CPU to other guests (seen
// in a loop of the suite on this shared machine). A test that expects no
// warning of the case's own expects exactly these.
export function machineWarnings(caseResult) {
  const stolen = caseResult.runs.filter((run) => run.disturbance?.steal > 0.05).length;
  return stolen > 0 ? [`steal above 5% in ${stolen} of ${caseResult.runs.length} runs: the hypervisor gave this machine's CPU to other guests while it measured`] : [];
}
