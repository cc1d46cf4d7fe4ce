import { chainsForThisProcess } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { hostileSuite } from './support/suites/hostile.js';

// The hostile-input suite (test/support/suites/hostile.js) over the trojan-vless family of
// preset-chains.js; each family has a file of its own, so they run side by
// side.
hostileSuite(chainsForThisProcess(import.meta.url, chainsOf('trojan-vless')));
