// @ts-check
import { DISTURBED_OTHERS, DISTURBED_STEAL } from '../result.js';
import { formatFixed } from './units.js';

// What else the machine did while it measured, over every run of a result
// (each run's `disturbance`, docs/result.md): the load average before the
// runs and the shares of its CPU left idle, used by other processes (and
// stolen, when any was), as ranges, then how many cases stayed disturbed
// (docs/statistics.md). Every format prints these sentences, so a reader
// of any of them knows how busy the machine was. '' for results without
// them.
export function machineLoadText(result) {
  const disturbances = result.cases
    .flatMap((caseResult) => caseResult.runs.map((run) => run.disturbance))
    .filter(Boolean);
  const range = (values, format) =>
    values.length === 0 ? null : `${format(Math.min(...values))}-${format(Math.max(...values))}`;
  const pick = (name) => disturbances.map((d) => d[name]).filter((value) => typeof value === 'number');
  const percent = (fraction) => `${formatFixed(fraction * 100, 1)}%`;
  const load = range(pick('loadAverage'), (value) => formatFixed(value, 1));
  const idle = range(pick('idle'), percent);
  const others = range(pick('others'), percent);
  const steal = pick('steal').some((value) => value > 0) ? range(pick('steal'), percent) : null;
  if (!load && !idle) return '';
  return `The machine while it measured: load average ${load ?? 'unknown'} before the runs, ${idle ?? 'unknown'} of its CPU idle during them${others ? `, ${others} used by other processes` : ''}${steal ? `, ${steal} stolen` : ''}.${disturbedText(result)}`;
}

// ' 2 of 22 cases were disturbed: ...' when some case stayed disturbed
// after being measured again; '' when none.
function disturbedText(result) {
  const measured = result.cases.filter((caseResult) => caseResult.status === 'ok');
  const disturbed = measured.filter((caseResult) => caseResult.disturbed).length;
  if (disturbed === 0) return '';
  const again =
    result.options?.remeasure > 0 ? `, even when measured again (up to ${result.options.remeasure} times)` : '';
  return ` ${disturbed} of ${measured.length} cases were disturbed: other processes took over ${DISTURBED_OTHERS * 100}% of the CPU (or the hypervisor over ${DISTURBED_STEAL * 100}%) while they measured${again}, so their ranks are not an order.`;
}
