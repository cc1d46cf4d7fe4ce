// @ts-check
import { writeExportFile } from './export-file.js';
import { formatHtmlReport } from './html-report.js';
import { formatJsonReport } from './json-report.js';
import { formatMarkdownReport } from './markdown-report.js';

// Every file a result can be written as, beside the archive: the option
// that asks for it, the name its messages use, and its printer. A new
// format is one printer file and one line here.
export const EXPORTERS = Object.freeze([
  { option: 'json', kind: 'JSON', format: formatJsonReport },
  { option: 'markdown', kind: 'Markdown', format: formatMarkdownReport },
  { option: 'html', kind: 'HTML', format: formatHtmlReport },
]);

// Writes each export whose option names a file in `targets` ({ json,
// markdown, html }; '-' is stdout), each whole, saying so on stderr; true
// when every one asked for was written. One that fails is reported and the
// others are still written.
/**
 * @param {import('../contracts.js').Result} result
 * @param {{ json?: string | null, markdown?: string | null, html?: string | null }} targets
 * @param {{ stdout?: NodeJS.WritableStream, stderr?: NodeJS.WritableStream }} [streams]
 */
export async function writeExports(result, targets, { stdout = process.stdout, stderr = process.stderr } = {}) {
  let written = true;
  for (const { option, kind, format } of EXPORTERS) {
    const target = targets[option];
    if (typeof target !== 'string') continue;
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
