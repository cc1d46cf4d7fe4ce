import { fileURLToPath } from 'node:url';

// The cases.js that ships with the package (lib/runner/cases-file.js falls
// back to it), found the same way; importing the runner's loader here would
// load every preset just to print a path.
const BUNDLED_CASES_FILE = fileURLToPath(new URL('../../cases.js', import.meta.url));

// Which cases file a run measured, as a reader needs it: the set that ships
// with the package is named as such, since its path (deep in an npx cache)
// says nothing; any other file by its path.
export function casesFileRow(casesFile) {
  return casesFile === BUNDLED_CASES_FILE ? `bundled (${casesFile})` : casesFile;
}
