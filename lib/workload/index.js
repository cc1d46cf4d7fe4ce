// @ts-check
import { bulkWorkload } from './bulk.js';
import { requestWorkload } from './requests.js';
import { udpWorkload } from './udp.js';

// Every workload a run can measure, each with the parts bulk.js lists: the
// runner, the run's options and the result's types read them from here
// and name none. A new workload is its module and its line here.
/** @type {readonly import('../contracts.js').Workload[]} */
export const WORKLOADS = Object.freeze([bulkWorkload, udpWorkload, requestWorkload]);

// The workload a run's settings ask for, chosen once per run: the one
// whose option is set (--udp, --requests: normalizeOptions refuses the
// two together, as --udp is not for requests), else a bulk TCP stream.
/** @param {Partial<Record<string, unknown>>} settings */
export function workloadFor(settings) {
  return WORKLOADS.find(({ option }) => option && settings[option.name]) ?? bulkWorkload;
}

export { bulkWorkload };
