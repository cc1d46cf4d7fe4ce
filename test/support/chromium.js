import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// .ci/run installs chromium; elsewhere a missing browser skips with the
// reason, but in CI it must fail, or a page would go untested unseen.
export async function loadChromium() {
  const missing = !existsSync(CHROMIUM)
    ? `${CHROMIUM} not found (apt-get install chromium)`
    : await import('playwright-core').then(
        () => null,
        () => 'playwright-core not installed (npm ci)',
      );
  if (missing && process.env.CI === 'true') throw new Error(`this test needs a browser: ${missing}`);
  return missing ? { skip: missing } : { chromium: (await import('playwright-core')).chromium };
}
