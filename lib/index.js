// The programmatic API: the CLI is a thin layer over it. run() measures and
// returns the result object (docs/result.md); createReporter() and report()
// print, archive and export it as `cipherbench run` does; every reader
// takes a result of any version through upgradeResult().
//   import { run, createReporter } from 'cipherbench';
//   const reporter = await createReporter({ html: 'report.html' });
//   const result = await run({ duration: 1, onEvent: reporter.onEvent });
//   await reporter.finish(result);
export { run } from './runner/run.js';
export { RUN_OPTIONS } from './runner/run-options.js';
export { createReporter, report } from './report/reporter.js';
export { REPORT_OPTIONS } from './report/report-options.js';
export { EXPORTERS, writeExports } from './report/exporters.js';
export { formatTextReport } from './report/text-report.js';
export { compareResults } from './report/comparison.js';
export { formatComparison } from './report/comparison-text.js';
export { readResultFile } from './report/result-file.js';
export { RESULT_VERSION, upgradeResult } from './result.js';
