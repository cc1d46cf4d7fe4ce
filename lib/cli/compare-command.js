// @ts-check
import { compareResults, DEFAULT_THRESHOLD } from '../report/comparison.js';
import { formatComparison } from '../report/comparison-text.js';
import { readResultFile } from '../report/result-file.js';
import { parseThreshold } from '../report/report-options.js';
import { useColor } from '../report/terminal.js';
import { EXIT_FAILED, EXIT_OK } from '../errors.js';
import { actionWithExitCode } from './program.js';

export function registerCompareCommand(program) {
  program
    .command('compare <old> <new>')
    .description(
      "compare two result files (reports/*.json) case by case; exit 1 when a case got slower by more than --threshold beyond the runs' noise (3 or more runs a side: --repeat 3)",
    )
    .option(
      '--threshold <percent>',
      'smallest drop of the median receiver bitrate, in percent, that counts as slower',
      String(DEFAULT_THRESHOLD),
    )
    .option(
      '--strict',
      'also gate cases with fewer than 3 runs a side, on the threshold and disjoint min..max ranges alone',
    )
    .option('--json', 'print the comparison as JSON instead of the table')
    .option('--no-color', 'never colour the table (as NO_COLOR does); colour is only used on a terminal')
    .action(actionWithExitCode(compareCommand));
}

async function compareCommand(oldPath, newPath, options) {
  const threshold = parseThreshold(options.threshold);
  const [oldResult, newResult] = await Promise.all([readResultFile(oldPath), readResultFile(newPath)]);
  const comparison = compareResults(oldResult, newResult, { threshold, strict: options.strict ?? false });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
  } else {
    process.stdout.write(formatComparison(comparison, { color: useColor(process.stdout, options) }));
  }
  return comparison.regressed ? EXIT_FAILED : EXIT_OK;
}
