import { run } from '../../lib/index.js';

// run() with an observer that keeps every event and every child's pid, so a
// test can check the order of what happened and that no process outlived
// the run; `on` lets it act on events (kill a relay, stop one) as they come.
// One round of one second a run, no cipher ceilings (half a second a
// chain), no noise floor (three direct runs) and no disturbed run measured
// again (test files run side by side) unless a test asks for them.
export async function runRecording(options, on = () => {}) {
  const events = [];
  const pids = [];
  const result = await run({
    duration: 1,
    repeat: 1,
    ceiling: false,
    noiseFloor: 0,
    remeasure: 0,
    ...options,
    onEvent(event) {
      events.push(event);
      if (event.type === 'process-started') pids.push(event.pid);
      on(event);
    },
  });
  return { result, events, pids };
}

// What a run of a real case records that no test controls: whether other
// work on the machine disturbed it (test files run side by side). A test
// that expects a run's exact fields expects these where they are.
export const machineFields = (run) => ['remeasured', 'disturbed'].filter((key) => key in run);
