import { readResultFile } from '../report/result-file.js';
import { useColor } from '../report/terminal.js';
import { EXIT_FAILED, EXIT_OK } from '../errors.js';
import { actionWithExitCode } from './program.js';

// A report made again from an archived result (reports/*.json), long after
// the run: the same printers the run uses, reading the same object.
export function registerReportCommand(program) {
  program
    .command('report <file>')
    .description(
      'print or write the report of an archived result (reports/*.json): the text (the default), Markdown or HTML',
    )
    .option('--text', 'print the text report on stdout (the default when no --markdown or --html is given)')
    .option('--markdown <file>', 'write the report as Markdown to FILE (- for stdout)')
    .option('--html <file>', 'write the report as one self-contained HTML file to FILE (- for stdout)')
    .option('--no-color', 'never colour the text (as NO_COLOR does); colour is only used on a terminal')
    .action(actionWithExitCode(reportCommand));
}

async function reportCommand(file, options) {
  const result = await readResultFile(file);
  const [{ formatTextReport }, { writeExports }] = await Promise.all([
    import('../report/text-report.js'),
    import('../report/exporters.js'),
  ]);
  if (options.text || (!options.markdown && !options.html)) {
    process.stdout.write(formatTextReport(result, { color: useColor(process.stdout, options) }));
  }
  const written = await writeExports(result, { markdown: options.markdown, html: options.html });
  return written ? EXIT_OK : EXIT_FAILED;
}
