import { formatFixed } from './units.js';

// What else the machine did while it measured, over every run of a result
// (each run's `disturbance`, docs/result.md): the load average before the
// runs and the share of its CPU left idle (and stolen, when any was), as
// ranges. Every format prints this one sentence, so a reader of any of them
// knows how busy the machine was. '' for results without it.
export function machineLoadText(result) {
  const disturbances = result.cases.flatMap((caseResult) => caseResult.runs.map((run) => run.disturbance)).filter(Boolean);
  const range = (values, format) => (values.length === 0 ? null : `${format(Math.min(...values))}-${format(Math.max(...values))}`);
  const pick = (name) => disturbances.map((d) => d[name]).filter((value) => typeof value === 'number');
  const percent = (fraction) => `${formatFixed(fraction * 100, 1)}%`;
  const load = range(pick('loadAverage'), (value) => formatFixed(value, 1));
  const idle = range(pick('idle'), percent);
  const steal = pick('steal').some((value) => value > 0) ? range(pick('steal'), percent) : null;
  if (!load && !idle) return '';
  return `The machine while it measured: load average ${load ?? 'unknown'} before the runs, ${idle ?? 'unknown'} of its CPU idle during them${steal ? `, ${steal} stolen` : ''}.`;
}
