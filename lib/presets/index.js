// @ts-check
import { loadCatalogue } from './registry.js';

// The whole catalogue, for the commands, the runner and the tests. A relay
// process never imports this module: it loads its chain's presets alone
// (lib/cli/relay-command.js).
export const CATALOGUE = await loadCatalogue();
