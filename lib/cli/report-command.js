import { readResultFile } from '../report/result-file.js';

export const EXIT_WRITTEN = 0;
export const EXIT_NOT_WRITTEN = 1;

// A report made again from an archived result (reports/*.json), long after
// the run: the same printers the run uses, reading the same object.
export function registerReportCommand(program) {
  program
    .command('report <file>')
    .description('print or write the report of an archived result (reports/*.json): the text (the default), Markdown or HTML')
    .option('--text', 'print the text report on stdout (the default when no --markdown or --html is given)')
    .option('--markdown <file>', 'write the report as Markdown to FILE (- for stdout)')
    .option('--html <file>', 'write the report as one self-contained HTML file to FILE (- for stdout)')
    .option('--no-color', 'never colour the text (as NO_COLOR does); colour is only used on a terminal')
    .action(async (file, options) => {
      process.exitCode = await reportCommand(file, options);
    });
}

async function reportCommand(file, options) {
  const result = await readResultFile(file);
  const [{ formatTextReport }, { formatMarkdownReport }, { formatHtmlReport }, { writeExportFile }] = await Promise.all([
    import('../report/text-report.js'),
    import('../report/markdown-report.js'),
    import('../report/html-report.js'),
    import('../report/export-file.js'),
  ]);
  const text = options.text || (!options.markdown && !options.html);
  if (text) {
    // NO_COLOR (https://no-color.org): present and not empty turns colour off.
    const color = options.color !== false && !process.env.NO_COLOR && Boolean(process.stdout.isTTY);
    process.stdout.write(formatTextReport(result, { color }));
  }
  let written = true;
  for (const [kind, target, format] of [['Markdown', options.markdown, formatMarkdownReport], ['HTML', options.html, formatHtmlReport]]) {
    if (!target) continue;
    if (target === '-') {
      process.stdout.write(format(result));
      continue;
    }
    try {
      await writeExportFile(target, format(result));
      process.stderr.write(`${kind} report written: ${target}\n`);
    } catch (error) {
      written = false;
      process.stderr.write(`cipherbench: the ${kind} report was not written: ${error.message}\n`);
    }
  }
  return written ? EXIT_WRITTEN : EXIT_NOT_WRITTEN;
}
