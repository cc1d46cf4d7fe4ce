import { fileURLToPath } from 'node:url';

// The CLI every child the runner starts runs through: relays, the echo
// target, the traffic engine and the legacy-provider ceiling child.
export const CLI = fileURLToPath(new URL('../../bin/cipherbench.js', import.meta.url));
