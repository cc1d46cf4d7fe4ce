import { chainsForThisProcess } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { stormSuite } from './support/suites/storm.js';

// The storm suite (test/support/suites/storm.js) over the trojan-vless family of
// preset-chains.js; each family has a file of its own, so they run side by
// side.
stormSuite(chainsForThisProcess(import.meta.url, chainsOf('trojan-vless')));
