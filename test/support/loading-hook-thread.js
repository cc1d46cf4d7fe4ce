import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { appendFileSync } from 'node:fs';

// The module hooks of loading-hook.js; Node runs them on a thread of their own.
let marker;
let holdMs = 0;
let moduleLog;

export function initialize(data) {
  ({ marker, holdMs, moduleLog } = data);
}

export async function load(url, context, nextLoad) {
  if (moduleLog && url.startsWith('file:')) appendFileSync(moduleLog, `${url}\n`);
  if (marker && (url.endsWith('/lib/cli/main.js') || url.endsWith('/lib/cli/relay-main.js'))) {
    writeFileSync(marker, `${Date.now()}\n`);
    if (holdMs > 0) await sleep(holdMs);
  }
  return nextLoad(url, context);
}
