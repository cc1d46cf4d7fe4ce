#!/usr/bin/env node
// The long soak, for before a release: `npm run soak -- --minutes N`.
// Every chain of test/support/preset-chains.js carries at least 200 fresh
// connections and 200 MB each way (write sizes from 1 byte to 1 MiB, the
// first 200 bytes split at every byte, a 16 MB upload while its server is
// stopped 300 ms), beside a busy loop; then the chains go round again
// until N minutes have passed. Prints a line per chain and exits 1 if any
// connection was reset or lost or changed a byte (docs/reliability.md).
import { parseArgs } from 'node:util';
import { legacyProviderStatus } from '../lib/crypto/legacy-provider.js';
import { chainNeedsLegacyProvider } from '../lib/chain/requirements.js';
import { PRESET_CHAINS } from '../test/support/preset-chains.js';
import { stopAll } from '../test/support/processes.js';
import {
  lateServerConnection,
  roundPlans,
  runPlans,
  startCpuBurner,
  startSoakPair,
  tally,
} from '../test/support/suites/soak.js';
import { CATALOGUE } from '../lib/presets/index.js';

const LEAST_CONNECTIONS = 200;
const LEAST_BYTES = 200 * 2 ** 20;

const usage = 'usage: npm run soak -- [--minutes N] (default 0: each chain once, to its 200 connections and 200 MB)';
let minutes;
try {
  const { values } = parseArgs({
    options: { minutes: { type: 'string', default: '0' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  if (!/^\d+(\.\d+)?$/.test(values.minutes))
    throw new Error(`--minutes takes a number of minutes, not '${values.minutes}'`);
  minutes = Number(values.minutes);
} catch (error) {
  console.error(`soak: ${error.message}\n${usage}`);
  process.exit(2);
}

// Chains that need OpenSSL's legacy provider (RC4) run when this script
// runs with it, as `npm run soak` does.
const legacy = legacyProviderStatus() === 'loaded';
const chains = PRESET_CHAINS.filter(({ presets }) => legacy || !chainNeedsLegacyProvider(CATALOGUE, presets));
const skipped = PRESET_CHAINS.length - chains.length;
const totals = new Map(chains.map(({ label }) => [label, { connections: 0, bytes: 0, resets: 0, failed: [] }]));

async function soakOnce({ label, presets, password = 'soak-password' }) {
  const total = totals.get(label);
  let pair;
  try {
    pair = await startSoakPair({ presets, password });
  } catch (error) {
    total.failed.push({
      plan: 'start',
      error: 'the relay pair did not start',
      received: 0,
      bytes: 0,
      logs: error.message,
    });
    console.log(`${label.padEnd(58)} the relay pair did not start`);
    return;
  }
  try {
    const startedAt = { connections: total.connections, bytes: total.bytes };
    while (
      total.connections - startedAt.connections < LEAST_CONNECTIONS ||
      total.bytes - startedAt.bytes < LEAST_BYTES
    ) {
      const results = await runPlans(pair.port, roundPlans({ repeat: 16 }));
      results.push(await lateServerConnection(pair.port, pair.server));
      const round = tally(results);
      total.connections += round.connections;
      total.bytes += round.bytes;
      total.resets += round.resets;
      total.failed.push(...round.failed.map((result) => ({ ...result, logs: pair.logs() })));
    }
  } finally {
    await pair.stop();
  }
  console.log(
    `${label.padEnd(58)} ${String(total.connections).padStart(6)} connections ${(total.bytes / 2 ** 20).toFixed(0).padStart(6)} MB each way  ${total.resets} resets  ${total.failed.length} failed`,
  );
}

const burner = startCpuBurner();
const started = Date.now();
// Interrupted: the relay pair and the busy loop go too, then the exit.
const stop = () => Promise.all([burner.stop(), stopAll()]).then(() => process.exit(130));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
try {
  if (skipped > 0)
    console.log(
      `(${skipped} chains skipped: they need OpenSSL's legacy provider, node --openssl-legacy-provider scripts/soak.js)`,
    );
  do {
    for (const chain of chains) await soakOnce(chain);
  } while (Date.now() - started < minutes * 60_000);
} finally {
  await burner.stop();
}
const failed = [...totals.values()].flatMap((total) => total.failed);
const all = [...totals.values()].reduce(
  (sum, total) => ({ connections: sum.connections + total.connections, bytes: sum.bytes + total.bytes }),
  { connections: 0, bytes: 0 },
);
console.log(
  `\n${chains.length} chains, ${all.connections} connections, ${(all.bytes / 2 ** 30).toFixed(2)} GB each way in ${((Date.now() - started) / 60_000).toFixed(1)} min: ${failed.length} failed`,
);
for (const result of failed.slice(0, 5))
  console.log(
    `${result.plan}: ${result.error ?? 'changed bytes'} (${result.received} of ${result.bytes} back)\n${result.logs}`,
  );
process.exit(failed.length > 0 ? 1 : 0);
