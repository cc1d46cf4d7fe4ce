import { chainsForThisProcess } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { probingSuite } from './support/suites/probing.js';

// The probing suite (test/support/suites/probing.js) over the trojan-vless family of
// preset-chains.js; each family has a file of its own, so they run side by
// side.
probingSuite(chainsForThisProcess(import.meta.url, chainsOf('trojan-vless')));
