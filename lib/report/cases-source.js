// @ts-check
import { fileURLToPath } from 'node:url';

// The cases.js that ships with the package (lib/runner/cases-file.js falls
// back to it), found the same way; importing the runner's loader here would
// load every preset just to print a path.
const BUNDLED_CASES_FILE = fileURLToPath(new URL('../../cases.js', import.meta.url));

// Which cases file a run measured, as a reader needs it: the set that ships
// with the package, unedited, is named as such, since its path (deep in an
// npx cache) says nothing; any other file, the shipped one edited included,
// by its path. Results from before casesSource was recorded go by the path.
export function casesFileRow({ casesFile, casesSource }) {
  const bundled = casesSource === undefined ? casesFile === BUNDLED_CASES_FILE : casesSource === 'bundled';
  return bundled ? `bundled (${casesFile})` : casesFile;
}
