// @ts-check
import { bulkWorkload } from './bulk.js';
import { requestWorkload } from './requests.js';
import { udpWorkload } from './udp.js';

// The workload a run's settings ask for, chosen once per run: requests
// (--requests), datagrams (--udp), else a bulk TCP stream. Each has the
// parts bulk.js lists.
export function workloadFor({ requests = false, udp = false }) {
  if (requests) return requestWorkload;
  return udp ? udpWorkload : bulkWorkload;
}

export { bulkWorkload };
