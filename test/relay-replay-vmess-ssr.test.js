import { chainsForThisProcess } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { replayInProcessSuite, replaySuite } from './support/suites/replay.js';

// The replay suite (test/support/suites/replay.js) over the vmess-ssr family of
// preset-chains.js; each family has a file of its own, so they run side by
// side.
const chains = chainsForThisProcess(import.meta.url, chainsOf('vmess-ssr'));
replaySuite(chains);
replayInProcessSuite(chains);
