import { chainsForThisProcess, inLegacyChild } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { replayStatsTest, replayInProcessSuite, replaySuite } from './support/suites/replay.js';

// The replay suite (test/support/suites/replay.js) over the ss family of
// preset-chains.js; each family has a file of its own, so they run side by
// side.
const chains = chainsForThisProcess(import.meta.url, chainsOf('ss'));
replaySuite(chains);
replayInProcessSuite(chains);
if (!inLegacyChild()) replayStatsTest();
