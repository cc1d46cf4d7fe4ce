import { fileURLToPath } from 'node:url';

// The CLI our own children run through: relays, the echo target, the
// traffic engine and the latency probe on a link.
export const CLI = fileURLToPath(new URL('../../bin/cipherbench.js', import.meta.url));
