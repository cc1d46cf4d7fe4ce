// @ts-check
import { DEFAULT_THRESHOLD } from '../report/comparison.js';
import { parseThreshold } from '../report/report-options.js';
import { useColor } from '../report/terminal.js';
import { EXIT_FAILED, EXIT_INPUT, EXIT_OK } from '../errors.js';
import { actionWithExitCode } from './program.js';

export function registerHistoryCommand(program) {
  program
    .command('history [dir]')
    .description(
      'every archived run in DIR (default ./reports), case by case over time: date, median, spread and the change from the run before, judged as compare judges it; each machine, engine and workload apart, runs cut short listed apart',
    )
    .option('--html <file>', 'also write the history as one self-contained HTML page to FILE, a chart per case')
    .option('--json', 'print the history as JSON instead of the table')
    .option(
      '--threshold <percent>',
      'smallest change of the median, in percent, that counts as slower or faster',
      String(DEFAULT_THRESHOLD),
    )
    .option('--no-color', 'never colour the table (as NO_COLOR does); colour is only used on a terminal')
    .action(actionWithExitCode(historyCommand));
}

async function historyCommand(dir = './reports', options) {
  const threshold = parseThreshold(options.threshold);
  // Loaded when asked for: every relay starts through this CLI, and what
  // it loads at start stays on its heap.
  const [{ buildHistory, readArchivedRuns }, { writeExportFile }] = await Promise.all([
    import('../report/history.js'),
    import('../report/export-file.js'),
  ]);
  const { runs, problems } = await readArchivedRuns(dir);
  // One line for each file that could not be read; the rest still count.
  for (const { message } of problems) process.stderr.write(`cipherbench: ${message}\n`);
  if (runs.length === 0) {
    // Files were there but none could be read: say so after their lines.
    if (problems.some((problem) => problem.file !== dir))
      process.stderr.write(`cipherbench: no readable archived run in ${dir}\n`);
    return EXIT_INPUT;
  }
  const history = buildHistory(runs, { threshold });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
  } else {
    const { formatHistoryText } = await import('../report/history-text.js');
    process.stdout.write(formatHistoryText(history, { color: useColor(process.stdout, options) }));
  }
  if (!options.html) return EXIT_OK;
  const { formatHistoryHtml } = await import('../report/history-html.js');
  try {
    await writeExportFile(options.html, formatHistoryHtml(history));
  } catch (error) {
    process.stderr.write(`cipherbench: ${error.message}\n`);
    return EXIT_FAILED;
  }
  process.stderr.write(`HTML history written: ${options.html}\n`);
  return EXIT_OK;
}
