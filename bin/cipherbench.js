#!/usr/bin/env node
import { holdSignals } from '../lib/cli/early-signals.js';
import { missingRelayFlags, runRelayWithFlags } from '../lib/cli/relay-node-flags.js';

// Before the rest loads: a Ctrl-C during start-up is held, not fatal.
holdSignals();
// A relay started by hand runs in a node with the relay's own flags.
const flags = missingRelayFlags();
if (flags.length > 0) {
  runRelayWithFlags(flags);
} else {
  const { main } = await import('../lib/cli/main.js');
  await main();
}
