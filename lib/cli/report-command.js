// @ts-check
import { readResultFile } from '../report/result-file.js';
import { useColor } from '../report/terminal.js';
import { EXPORTERS, writeExports } from '../report/exporters.js';
import { EXIT_FAILED, EXIT_OK } from '../errors.js';
import { actionWithExitCode } from './program.js';

// A report made again from an archived result (reports/*.json), long after
// the run: the same printers the run uses, reading the same object. Its
// flags are the exporters' (lib/report/exporters.js): a new format there
// is a new flag here.
/** @param {import('commander').Command} program */
export function registerReportCommand(program) {
  const kinds = EXPORTERS.map(({ kind, stdout }) => (stdout ? `the ${kind} (the default)` : kind));
  const command = program
    .command('report <file>')
    .description(
      `print or write the report of an archived result (reports/*.json): ${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`,
    );
  for (const { flag, description } of EXPORTERS) command.option(flag, description);
  if (EXPORTERS.some((exporter) => exporter.colored)) {
    command.option('--no-color', 'never colour the text (as NO_COLOR does); colour is only used on a terminal');
  }
  command.action(actionWithExitCode(reportCommand));
}

/**
 * @param {string} file
 * @param {{ [option: string]: unknown }} options
 */
async function reportCommand(file, options) {
  const result = await readResultFile(file);
  const toFiles = EXPORTERS.some(({ name }) => typeof options[name] === 'string');
  for (const exporter of EXPORTERS.filter(({ name, stdout }) => stdout && (options[name] || !toFiles))) {
    const format = await exporter.printer();
    process.stdout.write(format(result, { color: useColor(process.stdout, options) }));
  }
  return (await writeExports(result, options)) ? EXIT_OK : EXIT_FAILED;
}
