import { chainsForThisProcess } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { hostileInProcessSuite, hostileSuite } from './support/suites/hostile.js';

// The hostile-input suite (test/support/suites/hostile.js) over the vmess-ssr family of
// preset-chains.js; each family has a file of its own, so they run side by
// side.
const chains = chainsForThisProcess(import.meta.url, chainsOf('vmess-ssr'));
hostileSuite(chains);
hostileInProcessSuite(chains);
