import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// The module hooks of loading-hook.js; Node runs them on a thread of their own.
let marker;
let holdMs = 0;

export function initialize(data) {
  ({ marker, holdMs } = data);
}

export async function load(url, context, nextLoad) {
  if (marker && (url.endsWith('/lib/cli/main.js') || url.endsWith('/lib/cli/relay-main.js'))) {
    writeFileSync(marker, `${Date.now()}\n`);
    if (holdMs > 0) await sleep(holdMs);
  }
  return nextLoad(url, context);
}
