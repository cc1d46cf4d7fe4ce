// The programmatic API: the CLI is a thin layer over run(), and every report
// reads the result object it returns (docs/result.md).
export { run } from './runner/run.js';
