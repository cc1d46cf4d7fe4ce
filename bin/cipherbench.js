#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { holdSignals } from '../lib/cli/early-signals.js';
import { missingRelayFlags, runRelayWithFlags } from '../lib/cli/relay-node-flags.js';

// Before the rest loads: a Ctrl-C during start-up is held, not fatal.
holdSignals();
// A relay started by hand runs in a node with the relay's own flags.
const flags = missingRelayFlags();
if (flags.length > 0) {
  runRelayWithFlags(flags);
} else {
  // A relay loads only the relay (lib/cli/relay-main.js).
  const relay = ['relay', 'bare-relay'].includes(process.argv[2]);
  let run;
  try {
    run = relay ? (await import('../lib/cli/relay-main.js')).relayMain : (await import('../lib/cli/main.js')).main;
  } catch (error) {
    exitIfNotInstalled(error);
    throw error;
  }
  await run();
}

// A clone run before `npm ci` lacks the packages cipherbench depends on:
// one line that says so, exit 1 (the setup, not the command line, is what
// is wrong). A missing file of its own is a bug and keeps its stack.
function exitIfNotInstalled(error) {
  const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && /^Cannot find package '([^']+)'/.exec(error.message)?.[1];
  const manifest = fileURLToPath(new URL('../package.json', import.meta.url));
  if (!missing || !Object.hasOwn(JSON.parse(readFileSync(manifest, 'utf8')).dependencies ?? {}, missing)) return;
  process.stderr.write(
    `cipherbench: the package ${missing} it needs is not installed: run \`npm ci\` in ${path.dirname(manifest)}\n`,
  );
  process.exit(1);
}
