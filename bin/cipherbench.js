#!/usr/bin/env node
import { holdSignals } from '../lib/cli/early-signals.js';

// Before the rest loads: a Ctrl-C during start-up is held, not fatal.
holdSignals();
const { main } = await import('../lib/cli/main.js');
await main();
