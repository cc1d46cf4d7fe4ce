// @ts-check
import { writeExportFile } from './export-file.js';

/**
 * A form a result can be written in, as hyperfine's exporters are: the
 * report command's flag for it, and for the run command too when `onRun`
 * says what it does there; its printer, loaded only when that form is
 * asked for, so a command that writes none (a relay) does not load it.
 * @typedef {object} Exporter
 * @property {string} name the option's name: the key writeExports reads
 * @property {string} kind what messages call it
 * @property {string} flag the report command's flag
 * @property {string} description the report command's help for it
 * @property {string} extension how its file's name ends: the archive's, for text and JSON
 * @property {boolean} [stdout] printed on stdout when no file is asked for (the text)
 * @property {boolean} [colored] laid out with colour on a terminal, so --no-color applies
 * @property {string} [onRun] the run command's help for the same flag; without it,
 *   run declares the flag itself (--json, which may also go to stdout) or has none
 * @property {() => Promise<(result: import('../contracts.js').Result, options?: { color?: boolean }) => string>} printer
 */

// Every form, in the order the help lists them. A new format is one
// printer file and one line here.
/** @type {readonly Exporter[]} */
export const EXPORTERS = Object.freeze([
  {
    name: 'text',
    kind: 'text',
    flag: '--text',
    description: 'print the text report on stdout (the default when no file is asked for)',
    extension: '.txt',
    stdout: true,
    colored: true,
    printer: async () => (await import('./text-report.js')).formatTextReport,
  },
  {
    name: 'json',
    kind: 'JSON',
    flag: '--json <file>',
    description: 'write the result as JSON (docs/result.md, upgraded to this version) to FILE (- for stdout)',
    extension: '.json',
    printer: async () => (await import('./json-report.js')).formatJsonReport,
  },
  {
    name: 'markdown',
    kind: 'Markdown',
    flag: '--markdown <file>',
    description: 'write the report as Markdown to FILE (- for stdout)',
    onRun: 'also write the ranking as Markdown to FILE',
    extension: '.md',
    printer: async () => (await import('./markdown-report.js')).formatMarkdownReport,
  },
  {
    name: 'html',
    kind: 'HTML',
    flag: '--html <file>',
    description: 'write the report as one self-contained HTML file to FILE (- for stdout)',
    onRun: 'also write the report as one self-contained HTML file to FILE',
    extension: '.html',
    printer: async () => (await import('./html-report.js')).formatHtmlReport,
  },
]);

/** @param {string} name */
export function exporterNamed(name) {
  const exporter = EXPORTERS.find((candidate) => candidate.name === name);
  if (!exporter) throw new Error(`no exporter named ${name}`);
  return exporter;
}

// Writes each export whose option names a file in `targets` (keyed by the
// exporters' names; '-' is stdout), each whole, saying so on stderr; true
// when every one asked for was written. One that fails is reported and the
// others are still written.
/**
 * @param {import('../contracts.js').Result} result
 * @param {{ [name: string]: unknown }} targets
 * @param {{ stdout?: NodeJS.WritableStream, stderr?: NodeJS.WritableStream }} [streams]
 */
export async function writeExports(result, targets, { stdout = process.stdout, stderr = process.stderr } = {}) {
  let written = true;
  for (const { name, kind, printer } of EXPORTERS) {
    const target = targets[name];
    if (typeof target !== 'string') continue;
    const format = await printer();
    if (target === '-') {
      stdout.write(format(result));
      continue;
    }
    try {
      await writeExportFile(target, format(result));
      stderr.write(`${kind} report written: ${target}\n`);
    } catch (error) {
      written = false;
      stderr.write(`cipherbench: the ${kind} report was not written: ${error.message}\n`);
    }
  }
  return written;
}
