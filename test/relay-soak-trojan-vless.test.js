import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chainsForThisProcess } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { soakSuite } from './support/suites/soak.js';

// The soak suite (test/support/suites/soak.js) over the trojan-vless
// family of preset-chains.js; each family has a file of its own, so they
// run side by side.
soakSuite(chainsForThisProcess(import.meta.url, chainsOf('trojan-vless')), { describe, test, before, after, assert });
