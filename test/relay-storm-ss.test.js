import { chainsForThisProcess } from './support/legacy.js';
import { chainsOf } from './support/preset-chains.js';
import { stormSuite } from './support/suites/storm.js';

// The storm suite (test/support/suites/storm.js) over the ss family of
// preset-chains.js; each family has a file of its own, so they run side by
// side. aes-256-gcm, the method the reference rows share, takes 3,000
// connections (300 of them stalls) under the same 50 MB bound, which a
// relay whose young generation grows to node's default cap exceeded
// (+66 MB; docs/notes/reliability.md); the others take the suite's 500.
const BIG_STORM = 'ss aes-256-gcm';
const chains = chainsForThisProcess(import.meta.url, chainsOf('ss'));
stormSuite(
  chains.filter(({ label }) => label === BIG_STORM),
  { connections: 3_000, stalls: 300 },
);
stormSuite(chains.filter(({ label }) => label !== BIG_STORM));
